/*
 * hostport.c: "host:port" split and checked, one rule for the config and
 * the probes (see hostport.h).
 */
#include <sys/types.h>
#include <sys/socket.h>

#include <arpa/inet.h>
#include <netdb.h>
#include <stdlib.h>
#include <string.h>
#include <strings.h>

#include "hostport.h"
#include "xmalloc.h"

/* Return whether the len bytes at s are printable ASCII, no blanks. */
static int
hostport_graphic(const char *s, size_t len)
{
	size_t	i;

	for (i = 0; i < len; i++) {
		if ((unsigned char)s[i] <= ' ' || (unsigned char)s[i] >= 0x7f)
			return 0;
	}
	return 1;
}

/* Return whether host is localhost or a numeric address (no DNS). */
static int
hostport_numeric(const char *host)
{
	struct addrinfo	hints, *res;

	if (strcasecmp(host, "localhost") == 0)
		return 1;
	memset(&hints, 0, sizeof hints);
	hints.ai_family = AF_UNSPEC;
	hints.ai_socktype = SOCK_STREAM;
	hints.ai_flags = AI_NUMERICHOST;
	if (getaddrinfo(host, NULL, &hints, &res) != 0)
		return 0;
	freeaddrinfo(res);
	return 1;
}

/*
 * Return whether host is a DNS name: letters, digits, '-', '_' and '.',
 * starting with a letter or digit.
 */
static int
hostport_name(const char *host)
{
	const char	*p;

	for (p = host; *p != '\0'; p++) {
		if ((*p >= 'a' && *p <= 'z') || (*p >= 'A' && *p <= 'Z') ||
		    (*p >= '0' && *p <= '9'))
			continue;
		if (p == host || (*p != '-' && *p != '_' && *p != '.'))
			return 0;
	}
	return p != host;
}

/*
 * Split s, a TCP target for what ("ready_tcp", "tcp probe"), into *host
 * and *port; -1 with *cause, naming what, when it is not
 * HOST:PORT or [IPV6]:PORT with a port from 1 to 65535 and a host that
 * is localhost or an address (or, when names is set, a DNS name);
 * HOSTPORT_BAD_HOST (also negative) when only the host is at fault.
 */
static int
hostport_parse(const char *what, const char *s, int names, char **host,
    char **port, char **cause)
{
	const char	*colon, *h, *p;
	size_t		 hlen;
	long		 n = 0;
	int		 ok;

	*host = *port = NULL;
	if (s[0] == '[') {
		if ((p = strchr(s, ']')) == NULL || p[1] != ':')
			goto form;
		h = s + 1;
		hlen = (size_t)(p - h);
		colon = p + 1;
	} else {
		if ((colon = strrchr(s, ':')) == NULL ||
		    memchr(s, ':', (size_t)(colon - s)) != NULL)
			goto form;
		h = s;
		hlen = (size_t)(colon - s);
	}
	if (hlen == 0 || !hostport_graphic(h, hlen))
		goto form;
	for (p = colon + 1; *p >= '0' && *p <= '9' && n <= 65535; p++)
		n = n * 10 + (*p - '0');
	if (p == colon + 1 || *p != '\0' || n < 1 || n > 65535)
		goto form;
	*host = xstrndup(h, hlen);
	if (names && s[0] != '[' && hostport_name(*host))
		ok = 1;
	else
		ok = hostport_numeric(*host);
	if (!ok) {
		if (names)
			*cause = xprintf("%s: host \"%s\" is neither a host "
			    "name nor an IP address", what, *host);
		else
			*cause = xprintf("%s: host \"%s\" is neither an IP "
			    "address nor localhost (names are not resolved, so "
			    "the loop never waits on DNS)", what, *host);
		free(*host);
		*host = NULL;
		return HOSTPORT_BAD_HOST;
	}
	*port = xstrdup(colon + 1);
	return 0;

form:
	*cause = xprintf("%s must be host:port with a port from 1 to 65535 "
	    "(IPv6 as [::1]:80)", what);
	return -1;
}

/* Split a TCP target whose host is localhost or an address; see above. */
int
hostport_split(const char *what, const char *s, char **host, char **port,
    char **cause)
{
	return hostport_parse(what, s, 0, host, port, cause);
}

/* Split a TCP target whose host may also be a DNS name; see above. */
int
hostport_split_name(const char *what, const char *s, char **host,
    char **port, char **cause)
{
	return hostport_parse(what, s, 1, host, port, cause);
}

/*
 * Check a ws:// or wss:// URL (see hostport.h) and split it: its host and
 * port (allocated), its scheme's http one, and where its path starts.
 */
static int
hostport_ws_parse(const char *what, const char *ws, int names, char **host,
    char **port, const char **scheme, const char **hp, size_t *hplen,
    char **cause)
{
	static const char	 ok[] = "ABCDEFGHIJKLMNOPQRSTUVWXYZ"
				    "abcdefghijklmnopqrstuvwxyz0123456789"
				    "-._~:/?#[]@!$&()*+,;=%";
	const char		*rest;
	char			*copy;
	size_t			 len;
	int			 r;

	if (strlen(ws) > HOSTPORT_URL_MAX) {
		*cause = xprintf("%s is longer than %d bytes", what,
		    HOSTPORT_URL_MAX);
		return -1;
	}
	if (ws[strspn(ws, ok)] != '\0') {
		*cause = xprintf("%s has a byte a URL cannot hold (a blank, a "
		    "quote, a control character or one above 0x7e)", what);
		return -1;
	}
	if (strncmp(ws, "ws://", 5) == 0) {
		*scheme = "http";
		rest = ws + 5;
	} else if (strncmp(ws, "wss://", 6) == 0) {
		*scheme = "https";
		rest = ws + 6;
	} else {
		*cause = xprintf("%s must start with ws:// or wss://", what);
		return -1;
	}
	len = strcspn(rest, "/?#");
	copy = xstrndup(rest, len);
	r = hostport_parse(what, copy, names, host, port, cause);
	free(copy);
	*hp = rest;
	*hplen = len;
	return r;
}

/*
 * Check a ws:// or wss:// URL and make its /json/version URL; see
 * hostport.h.
 */
int
hostport_ws_url(const char *what, const char *ws, int names, char **json,
    int *path, char **cause)
{
	const char	*scheme, *hp;
	char		*host, *port;
	size_t		 len;
	int		 r;

	r = hostport_ws_parse(what, ws, names, &host, &port, &scheme, &hp,
	    &len, cause);
	if (r != 0)
		return r;
	free(host);
	free(port);
	if (path != NULL)
		*path = hp[len] != '\0' && strcmp(hp + len, "/") != 0;
	if (json != NULL)
		*json = xprintf("%s://%.*s/json/version", scheme, (int)len, hp);
	return 0;
}

/*
 * Return whether two hosts are the same: the same address when both are
 * numeric ones of a family, else the same name, case aside.
 */
static int
hostport_same_host(const char *a, const char *b)
{
	unsigned char	x[sizeof(struct in6_addr)], y[sizeof(struct in6_addr)];

	if (inet_pton(AF_INET6, a, x) == 1 && inet_pton(AF_INET6, b, y) == 1)
		return memcmp(x, y, sizeof(struct in6_addr)) == 0;
	if (inet_pton(AF_INET, a, x) == 1 && inet_pton(AF_INET, b, y) == 1)
		return memcmp(x, y, sizeof(struct in_addr)) == 0;
	return strcasecmp(a, b) == 0;
}

/*
 * Return whether two ws:// or wss:// URLs (hostport_ws_url()'s rule, DNS
 * names allowed) have the same scheme, host and port; 0 when either is
 * not such a URL.
 */
int
hostport_ws_same(const char *a, const char *b)
{
	const char	*sa, *sb, *hp;
	char		*ha, *pa, *hb, *pb, *cause = NULL;
	size_t		 len;
	int		 same;

	if (hostport_ws_parse("url", a, 1, &ha, &pa, &sa, &hp, &len,
	    &cause) != 0) {
		free(cause);
		return 0;
	}
	if (hostport_ws_parse("url", b, 1, &hb, &pb, &sb, &hp, &len,
	    &cause) != 0) {
		free(cause);
		free(ha);
		free(pa);
		return 0;
	}
	/* wss:// is not ws://: a downgrade to plain text is another place. */
	same = strcmp(sa, sb) == 0 && hostport_same_host(ha, hb) &&
	    atoi(pa) == atoi(pb);
	free(ha);
	free(pa);
	free(hb);
	free(pb);
	return same;
}
