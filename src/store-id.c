/*
 * store-id.c: run and deck ids, YYYYMMDDTHHMMSS-XXXXXXXX (store.h): made,
 * checked and read back as a time, here and nowhere else.  Below the rest
 * of the store: it uses none of it.
 */
#include <stdint.h>
#include <stdio.h>
#include <string.h>
#include <time.h>
#include <unistd.h>

#include "entropy.h"
#include "store-private.h"

/* Return 32 random bits: the kernel's (entropy.h), else time and pid. */
static uint32_t
store_random(void)
{
	struct timespec	ts;
	uint32_t	r, x;

	if (entropy_fill(&r, sizeof r) == 0)
		return r;
	clock_gettime(CLOCK_REALTIME, &ts);
	x = (uint32_t)ts.tv_nsec ^ (uint32_t)ts.tv_sec * 2654435761u ^
	    (uint32_t)getpid() << 16;
	x ^= x >> 15;
	x *= 0x2c1b3c6du;
	x ^= x >> 12;
	return x;
}

/*
 * Make a new id, YYYYMMDDTHHMMSS-XXXXXXXX, in id (STORE_ID_LEN + 1): the
 * UTC second, then the millisecond in the first three hex digits and 20
 * random bits, so ids sort by age to the millisecond.
 */
void
store_id_new(char *id)
{
	struct timespec	ts;
	struct tm	tm;
	time_t		now;
	char		stamp[32], hex[16];

	clock_gettime(CLOCK_REALTIME, &ts);
	now = ts.tv_sec;
	gmtime_r(&now, &tm);
	if (strftime(stamp, sizeof stamp, "%Y%m%dT%H%M%S", &tm) != 15)
		memcpy(stamp, "99991231T235959", 16);
	snprintf(hex, sizeof hex, "%03x%05x", (unsigned)(ts.tv_nsec /
	    1000000), (unsigned)store_random() & 0xfffff);
	memcpy(id, stamp, 15);
	id[15] = '-';
	memcpy(id + 16, hex, 8);
	id[STORE_ID_LEN] = '\0';
}

/* Return 1 if id has exactly the shape of a run or deck id. */
int
store_id_valid(const char *id)
{
	int	i;
	char	c;

	for (i = 0; i < STORE_ID_LEN; i++) {
		c = id[i];
		if (i == 8) {
			if (c != 'T')
				return 0;
		} else if (i == 15) {
			if (c != '-')
				return 0;
		} else if (i < 15) {
			if (c < '0' || c > '9')
				return 0;
		} else if ((c < '0' || c > '9') && (c < 'a' || c > 'f'))
			return 0;
	}
	return id[STORE_ID_LEN] == '\0';
}

/* Return the time an id was made (its UTC second) in wall ms, 0 if none. */
int64_t
store_id_time(const char *id)
{
	struct tm	tm;

	memset(&tm, 0, sizeof tm);
	if (sscanf(id, "%4d%2d%2dT%2d%2d%2d", &tm.tm_year, &tm.tm_mon,
	    &tm.tm_mday, &tm.tm_hour, &tm.tm_min, &tm.tm_sec) != 6)
		return 0;
	tm.tm_year -= 1900;
	tm.tm_mon -= 1;
	return (int64_t)timegm(&tm) * 1000;
}
