/*
 * hostport: the one rule for a TCP target, "host:port" (ready_tcp,
 * liveness_tcp): config.c checks it when the file is read and probe.c
 * splits it before it connects, so both say the same of the same text.
 * The host is localhost or a numeric address (an IPv6 one in brackets,
 * "[::1]:80"): names are refused, since resolving one could hold up the
 * loop on DNS; the port is decimal, 1 to 65535.
 *
 * Ownership: *host and *port are allocated for the caller.
 */
#ifndef JOBDECK_HOSTPORT_H
#define JOBDECK_HOSTPORT_H

/*
 * Both return 0, or -1 with *cause when s is not HOST:PORT, or
 * HOSTPORT_BAD_HOST with *cause when it is but its host breaks the rule.
 */
#define HOSTPORT_BAD_HOST	(-2)

int	hostport_split(const char *what, const char *s, char **host,
	    char **port, char **cause);
/*
 * The same rule, except that the host may also be a DNS name (letters,
 * digits, '-', '_', '.'): for a target reached through http.h, whose
 * resolver runs off the loop (a [browser] cdp_url).
 */
int	hostport_split_name(const char *what, const char *s, char **host,
	    char **port, char **cause);

/*
 * A ws:// or wss:// URL (a [browser] cdp_url, a browser's
 * webSocketDebuggerUrl or DevTools line): at most HOSTPORT_URL_MAX bytes,
 * each one RFC 3986 has a place for (no blank, quote or control
 * character: such a URL reaches terminals and jobs' environments), then
 * HOST:PORT by hostport_split_name()'s rule (hostport_split()'s when
 * names is 0), then an optional path, query or fragment.  0, with *json
 * (unless NULL) its http:// or https:// /json/version URL, allocated, and
 * *path (unless NULL) 1 when it has a path beyond "/"; or -1 or
 * HOSTPORT_BAD_HOST with *cause.
 */
#define HOSTPORT_URL_MAX	2048

int	hostport_ws_url(const char *what, const char *ws, int names,
	    char **json, int *path, char **cause);

/*
 * Whether two such URLs (DNS names allowed) are at the same host and
 * port: addresses compared as addresses ("::1" is "0::1"), names without
 * regard to case, ports as numbers; 0 when either is not such a URL.  A
 * browser's webSocketDebuggerUrl must be where its cdp_url is.
 */
int	hostport_ws_same(const char *a, const char *b);

#endif
