/*
 * duration: a length of time as a person writes it, the one rule for
 * every face that reads one (every = "30s", --timeout 5m).  A number of
 * seconds alone ("30", "0.5"), or one or more parts, each a number (with
 * a fraction if need be) and a unit, largest first and each unit once:
 * "500ms", "30s", "5m", "2h", "1d", "1h30m", "1.5h".  Nothing else: no
 * sign, no blanks, no exponent.  Errors say what was wrong ("every: 'x5'
 * is not a duration (as 30s, 5m, 1h30m, 500ms; a number alone is
 * seconds)", "... is more than 31536000 seconds").
 *
 * Ownership: *cause is allocated on error; what names the value in a
 * message ("every") is borrowed.
 */
#ifndef JOBDECK_DURATION_H
#define JOBDECK_DURATION_H

int	 duration_parse(const char *what, const char *s, double max,
	    double *secs, char **cause);

#endif
