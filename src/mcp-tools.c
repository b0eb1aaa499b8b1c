/*
 * mcp-tools.c: the table of the tools of jobdeck mcp (mcp-private.h), as
 * data: each one's words for the agent, its parameters, its outputSchema
 * and the function that starts a call (mcp-tools-private.h names the
 * files that hold the rest).  A tool asks the deck over the control
 * socket (mcp_call_ctl(): the words of jobdeck ctl; the commands are in
 * ctl.h and cmd-ctl.c) and reads the JSON replies with jsonval.h; what it
 * gives back is built with json.h, and every structuredContent satisfies
 * the tool's outputSchema (the SDK clients check it).
 *
 * The tools, after seed 004 (an editor agent's background terminal jobs)
 * and seed 002 (a subprocess primitive):
 *
 *   terminal		spawn --agent CLIENT [--cwd] [--env]... -- COMMAND;
 *			with async false, then wait --timeout T and status.
 *   terminal_job_status status --since MARK: the output this session has
 *			not seen (its mark per job and run), or from a line.
 *   terminal_job_list	list: the most recent jobs, counts.
 *   terminal_job_cancel status, then kill when the job is live.
 *   terminal_send_input send ID -- TEXT, TEXT escaped for send.
 *   terminal_screen	screen ID: the rows of a full-screen program.
 *   run		spawn --pipes --timeout --no-shell, wait, status
 *			--split:
 *			stdout, stderr and a return code, the deck's "code"
 *			of the job's end (waitstatus.h: 124 timed out, 126
 *			not executable, 127 not found...).
 *   stack_reload	reload: the configuration file read again and
 *			applied (issue 27); the deck's report, its job
 *			names by change (cmd-reload.c's --json object).
 *   stack_scale	scale NAME N: N replicas of a configured job; the
 *			same report.
 *
 * The deck's states become the tools' status words in one table
 * (mcp_tools_states[], mcp-tools-shared.c); a job object of the deck
 * becomes the tools' in one function (mcp_tools_put_job()).  A deck's
 * job object is read by the names of the deck's own field table
 * (jobfield.h, mcp_tools_field()).  Deck errors (status 1, 2, or none at
 * all) are tool errors carrying the deck's own words; so is output that
 * ends at damage in the store (status's "output_error"), with what was
 * read before it.
 */
#include <stddef.h>

#include "config.h"
#include "mcp-tools-private.h"

/* The tools' status words, for status_filter. */
const char *const mcp_tools_status_words[] = {
	"queued", "running", "waiting_for_input", "completed", "failed",
	"canceled", "timed_out", NULL
};

/*
 * The arrays of job names by change of the deck's reload report, in its
 * order (cmd-reload.c; the words are stack_change_word()'s).
 */
const char *const mcp_tools_change_words[] = {
	"restarted", "updated", "added", "removed", "scaled", "unchanged",
	NULL
};

/* ---- Schemas and parameters ---- */

#define MCP_NULLABLE(t)	"{\"type\":[\"" t "\",\"null\"]}"

/* The tools' job object (mcp_tools_put_job()): its properties. */
#define MCP_SCHEMA_JOB							\
	"\"job_id\":{\"type\":\"integer\"},"				\
	"\"name\":" MCP_NULLABLE("string") ","				\
	"\"status\":{\"type\":\"string\"},"				\
	"\"state\":{\"type\":\"string\"},"				\
	"\"command\":" MCP_NULLABLE("string") ","			\
	"\"cwd\":" MCP_NULLABLE("string") ","				\
	"\"host\":" MCP_NULLABLE("string") ","				\
	"\"pid\":" MCP_NULLABLE("integer") ","				\
	"\"agent\":" MCP_NULLABLE("string") ","			\
	"\"duration_ms\":" MCP_NULLABLE("integer") ","			\
	"\"exit_code\":" MCP_NULLABLE("integer") ","			\
	"\"signal\":" MCP_NULLABLE("string")

/* Output read from a mark (mcp_tools_put_output()): its properties. */
#define MCP_SCHEMA_OUTPUT						\
	"\"output\":{\"type\":\"string\"},"				\
	"\"output_truncated\":{\"type\":\"boolean\"},"			\
	"\"offset\":" MCP_NULLABLE("integer") ","			\
	"\"next_offset\":" MCP_NULLABLE("integer") ","			\
	"\"lines_left\":" MCP_NULLABLE("integer")

/* The tools' reload report (mcp-tools-stack.c): its whole outputSchema. */
#define MCP_SCHEMA_NAMES						\
	"{\"type\":\"array\",\"items\":{\"type\":\"string\"}}"

#define MCP_SCHEMA_RELOAD						\
	"{\"type\":\"object\",\"properties\":{"				\
	"\"summary\":{\"type\":\"string\"},"				\
	"\"restarted\":" MCP_SCHEMA_NAMES ","				\
	"\"updated\":" MCP_SCHEMA_NAMES ","				\
	"\"added\":" MCP_SCHEMA_NAMES ","				\
	"\"removed\":" MCP_SCHEMA_NAMES ","				\
	"\"scaled\":" MCP_SCHEMA_NAMES ","				\
	"\"unchanged\":" MCP_SCHEMA_NAMES ","				\
	"\"jobs\":{\"type\":\"array\",\"items\":{"			\
	"\"type\":\"object\",\"properties\":{"				\
	"\"name\":{\"type\":\"string\"},"				\
	"\"change\":{\"type\":\"string\"},"				\
	"\"what\":" MCP_NULLABLE("string") ","				\
	"\"replicas_before\":" MCP_NULLABLE("integer") ","		\
	"\"replicas_after\":" MCP_NULLABLE("integer") "},"		\
	"\"required\":[\"name\",\"change\"]}},"				\
	"\"settings\":" MCP_SCHEMA_NAMES "},"				\
	"\"required\":[\"summary\",\"restarted\",\"updated\","		\
	"\"added\",\"removed\",\"scaled\",\"unchanged\",\"jobs\","	\
	"\"settings\"]}"

#define MCP_DESC_HOST							\
	"Where it runs (default: here): a [hosts] name of the deck's "	\
	"configuration, or an ssh destination such as \"me@build1\"; "	\
	"cwd is then a directory there."

#define MCP_DESC_JOB_ID							\
	"The job: its id (a number, as terminal or terminal_job_list "	\
	"gave it) or its name."

static const struct mcp_param mcp_tools_terminal_params[] = {
	{ "command", MCP_STRING, 1, "The shell command line to run, as sh "
	    "-c runs it (pipes, redirections and && work), e.g. \"make test "
	    "2>&1\".", NULL, 0, 0, 0 },
	{ "cwd", MCP_STRING, 0, "The directory to run it in (default: the "
	    "deck's).", NULL, 0, 0, 0 },
	{ "env", MCP_STRING_MAP, 0, "Environment variables to set for it, "
	    "e.g. {\"DEBUG\": \"1\"}.", NULL, 0, 0, 0 },
	{ "host", MCP_STRING, 0, MCP_DESC_HOST, NULL, 0, 0, 0 },
	{ "async", MCP_BOOLEAN, 0, "true (the default): start the job and "
	    "return its job_id at once; follow it with terminal_job_status. "
	    "false: wait for it to end (at most timeout seconds) and return "
	    "its output and exit code.", NULL, 0, 0, 0 },
	{ "timeout", MCP_NUMBER, 0, "With async false: how many seconds to "
	    "wait (default 30, at most 3600).  A job still running then "
	    "keeps running (timed_out is true); poll or cancel it.", NULL, 0,
	    3600, 0 },
	{ NULL, 0, 0, NULL, NULL, 0, 0, 0 }
};

static const struct mcp_param mcp_tools_status_params[] = {
	{ "job_id", MCP_JOB_ID, 1, MCP_DESC_JOB_ID, NULL, 0, 0, 0 },
	{ "incremental", MCP_BOOLEAN, 0, "true (the default): only the "
	    "output this session has not been given yet; false: the output "
	    "from the start of the job's run.", NULL, 0, 0, 0 },
	{ "offset", MCP_INTEGER, 0, "Read the output from this line (0 is "
	    "the first line of the run; a previous result's next_offset "
	    "reads on).  Overrides incremental.", NULL, 0, 9007199254740991.0, 0 },
	{ NULL, 0, 0, NULL, NULL, 0, 0, 0 }
};

static const struct mcp_param mcp_tools_list_params[] = {
	{ "status_filter", MCP_STRING_ARRAY, 0, "Only jobs with one of these "
	    "statuses (default: all; running includes waiting_for_input, a "
	    "running job blocked reading its terminal).", mcp_tools_status_words, 0, 0, 0 },
	{ "limit", MCP_INTEGER, 0, "At most this many jobs, the most recent "
	    "(default 50).", NULL, 1, 1000, 0 },
	{ NULL, 0, 0, NULL, NULL, 0, 0, 0 }
};

static const struct mcp_param mcp_tools_job_params[] = {
	{ "job_id", MCP_JOB_ID, 1, MCP_DESC_JOB_ID, NULL, 0, 0, 0 },
	{ NULL, 0, 0, NULL, NULL, 0, 0, 0 }
};

static const struct mcp_param mcp_tools_send_params[] = {
	{ "job_id", MCP_JOB_ID, 1, MCP_DESC_JOB_ID, NULL, 0, 0, 0 },
	{ "text", MCP_STRING, 1, "The bytes to type, exactly: end a line with "
	    "\"\\n\" (or \"\\r\" for programs that want Enter as a carriage "
	    "return); control keys are their characters, e.g. Ctrl+C is "
	    "\"\\u0003\", Ctrl+D \"\\u0004\", Escape \"\\u001b\".", NULL, 0,
	    0, 1 },
	{ NULL, 0, 0, NULL, NULL, 0, 0, 0 }
};

static const struct mcp_param mcp_tools_run_params[] = {
	{ "command", MCP_STRING, 1, "The program to run (looked up in PATH), "
	    "not a shell command line: its arguments go in args.", NULL, 0,
	    0, 0 },
	{ "args", MCP_STRING_ARRAY, 0, "Its arguments, each one word as "
	    "given (no shell quoting or globbing).", NULL, 0, 0, 0 },
	{ "env", MCP_STRING_MAP, 0, "Environment variables to set for it.",
	    NULL, 0, 0, 0 },
	{ "cwd", MCP_STRING, 0, "The directory to run it in (default: the "
	    "deck's).", NULL, 0, 0, 0 },
	{ "host", MCP_STRING, 0, MCP_DESC_HOST, NULL, 0, 0, 0 },
	{ "timeout", MCP_NUMBER, 0, "Seconds before it is killed (default "
	    "300, at most 86400).", NULL, 0, 86400, 0 },
	{ "input_data", MCP_STRING, 0, "Text written to its standard input, "
	    "which is then closed (default: no input).", NULL, 0, 0, 1 },
	{ "params", MCP_STRING_MAP, 0, "Values for {name} placeholders in "
	    "command and args, e.g. {\"file\": \"a.txt\"} for args "
	    "[\"-l\", \"{file}\"]; each value fills its word as it is.  A "
	    "{name} without a value is an error; with params, ${VAR} is "
	    "the server's environment variable and $$ a literal $.", NULL,
	    0, 0, 0 },
	{ NULL, 0, 0, NULL, NULL, 0, 0, 0 }
};

static const struct mcp_param mcp_tools_reload_params[] = {
	{ NULL, 0, 0, NULL, NULL, 0, 0, 0 }
};

static const struct mcp_param mcp_tools_scale_params[] = {
	{ "name", MCP_JOB_NAME, 1, "The configured job, by its name in the "
	    "configuration file (not a replica's NAME.N).", NULL, 0, 0, 0 },
	{ "replicas", MCP_INTEGER, 1, "How many copies to run: 0 stops them "
	    "all, 1 runs the job alone.", NULL, 0, CONFIG_MAX_REPLICAS, 0 },
	{ NULL, 0, 0, NULL, NULL, 0, 0, 0 }
};

const struct mcp_tool mcp_tools[] = {
	{
		.name = "terminal",
		.title = "Run a shell command in the deck",
		.description = "Start a shell command as a job of the jobdeck "
		    "deck, where the user sees it too.  By default returns "
		    "its job_id at once (the job runs on in the background): "
		    "use terminal_job_status to read its output and learn "
		    "how it ended, terminal_send_input to answer a prompt, "
		    "terminal_job_cancel to stop it.  With async false, "
		    "waits up to timeout seconds and returns the output and "
		    "exit code.  The job has a terminal, so interactive and "
		    "full-screen programs work (see terminal_screen).",
		.params = mcp_tools_terminal_params,
		.output_schema = "{\"type\":\"object\",\"properties\":{"
		    MCP_SCHEMA_JOB "," MCP_SCHEMA_OUTPUT ","
		    "\"timed_out\":{\"type\":\"boolean\"}},"
		    "\"required\":[\"job_id\",\"status\"]}",
		.read_only = 0,
		.start = mcp_tools_terminal
	},
	{
		.name = "terminal_job_status",
		.title = "A job's status and new output",
		.description = "Return a job's status (queued, running, "
		    "completed, failed, canceled, timed_out), exit code, "
		    "duration and output.  By default (incremental) only the "
		    "output this session has not been given yet, so poll it "
		    "until status is no longer running.  Output is at most "
		    "64 KiB a call: when output_truncated is true, call "
		    "again to read on (or pass offset=next_offset).",
		.params = mcp_tools_status_params,
		.output_schema = "{\"type\":\"object\",\"properties\":{"
		    MCP_SCHEMA_JOB "," MCP_SCHEMA_OUTPUT "},"
		    "\"required\":[\"job_id\",\"status\",\"output\"]}",
		.read_only = 1,
		.start = mcp_tools_status
	},
	{
		.name = "terminal_job_list",
		.title = "The deck's jobs",
		.description = "List the deck's jobs, the most recent last: "
		    "each one's job_id, name, status, command, cwd, pid, "
		    "agent (the client that started it, or null when a "
		    "person did), duration and exit code; with the number "
		    "of jobs matching and of jobs running.",
		.params = mcp_tools_list_params,
		.output_schema = "{\"type\":\"object\",\"properties\":{"
		    "\"jobs\":{\"type\":\"array\",\"items\":{\"type\":"
		    "\"object\",\"properties\":{" MCP_SCHEMA_JOB "},"
		    "\"required\":[\"job_id\",\"status\"]}},"
		    "\"total\":{\"type\":\"integer\"},"
		    "\"running\":{\"type\":\"integer\"},"
		    "\"shown\":{\"type\":\"integer\"}},"
		    "\"required\":[\"jobs\",\"total\",\"running\",\"shown\"]}",
		.read_only = 1,
		.start = mcp_tools_job_list
	},
	{
		.name = "terminal_job_cancel",
		.title = "Cancel a job",
		.description = "Stop a running or queued job: SIGTERM to its "
		    "process group, then SIGKILL if it has not ended after a "
		    "grace period.  A job that has already ended is refused.",
		.params = mcp_tools_job_params,
		.output_schema = "{\"type\":\"object\",\"properties\":{"
		    "\"success\":{\"type\":\"boolean\"},"
		    "\"job_id\":{\"type\":\"integer\"},"
		    "\"previous_status\":{\"type\":\"string\"},"
		    "\"message\":{\"type\":\"string\"}},"
		    "\"required\":[\"success\",\"job_id\",\"previous_status\","
		    "\"message\"]}",
		.read_only = 0,
		.start = mcp_tools_cancel
	},
	{
		.name = "terminal_send_input",
		.title = "Type into a job",
		.description = "Write text to a running job's input, as if "
		    "typed: to answer a prompt (\"yes\\n\"), drive an "
		    "interactive program or press control keys (Ctrl+C is "
		    "the text \"\\u0003\").  Nothing is added: end a line "
		    "with \"\\n\".  Then read the reply with "
		    "terminal_job_status or terminal_screen.",
		.params = mcp_tools_send_params,
		.output_schema = "{\"type\":\"object\",\"properties\":{"
		    "\"success\":{\"type\":\"boolean\"},"
		    "\"job_id\":{\"type\":[\"integer\",\"string\"]},"
		    "\"bytes\":{\"type\":\"integer\"}},"
		    "\"required\":[\"success\",\"job_id\",\"bytes\"]}",
		.read_only = 0,
		.start = mcp_tools_send
	},
	{
		.name = "terminal_screen",
		.title = "A job's screen",
		.description = "Return a job's terminal screen as it is now: "
		    "its rows of text, the cursor, whether the program uses "
		    "the alternate screen, the title.  For full-screen "
		    "programs (top, less, vim, menus), whose output is not "
		    "lines.",
		.params = mcp_tools_job_params,
		.output_schema = "{\"type\":\"object\",\"properties\":{"
		    "\"job_id\":{\"type\":\"integer\"},"
		    "\"rows\":{\"type\":\"integer\"},"
		    "\"cols\":{\"type\":\"integer\"},"
		    "\"cursor\":{\"type\":\"object\",\"properties\":{"
		    "\"row\":{\"type\":\"integer\"},"
		    "\"col\":{\"type\":\"integer\"},"
		    "\"visible\":{\"type\":\"boolean\"}}},"
		    "\"alt_screen\":{\"type\":\"boolean\"},"
		    "\"title\":" MCP_NULLABLE("string") ","
		    "\"lines\":{\"type\":\"array\",\"items\":{\"type\":"
		    "\"string\"}}},"
		    "\"required\":[\"job_id\",\"rows\",\"cols\",\"lines\"]}",
		.read_only = 1,
		.start = mcp_tools_screen
	},
	{
		.name = "run",
		.title = "Run a program to its end",
		.description = "Run one program with arguments (no shell) to "
		    "its end, without a terminal, and return its stdout and "
		    "stderr apart and its return_code: the exit code, 128+N "
		    "for signal N, 124 when it timed out, 125 when it never "
		    "ran, 126 when it is not executable, 127 when it was not "
		    "found (error says why it did not run to its end).  Each "
		    "stream is at most 64 KiB (stdout_truncated, "
		    "stderr_truncated).  The job shows in the deck too.",
		.params = mcp_tools_run_params,
		.output_schema = "{\"type\":\"object\",\"properties\":{"
		    "\"success\":{\"type\":\"boolean\"},"
		    "\"job_id\":{\"type\":\"integer\"},"
		    "\"stdout\":{\"type\":\"string\"},"
		    "\"stderr\":{\"type\":\"string\"},"
		    "\"return_code\":{\"type\":\"integer\"},"
		    "\"duration_ms\":" MCP_NULLABLE("integer") ","
		    "\"timed_out\":{\"type\":\"boolean\"},"
		    "\"signal\":" MCP_NULLABLE("string") ","
		    "\"error\":" MCP_NULLABLE("string") ","
		    "\"stdout_truncated\":{\"type\":\"boolean\"},"
		    "\"stderr_truncated\":{\"type\":\"boolean\"}},"
		    "\"required\":[\"success\",\"stdout\",\"stderr\","
		    "\"return_code\",\"timed_out\"]}",
		.read_only = 0,
		.start = mcp_tools_run
	},
	{
		.name = "stack_reload",
		.title = "Apply the edited configuration",
		.description = "Read the deck's configuration file (or its "
		    "Procfile and .env) again and apply what changed while "
		    "the deck runs: the jobs whose spec changed restart, new "
		    "jobs start, jobs no longer in the file are stopped and "
		    "removed, the others run on untouched.  Call it after "
		    "editing the file.  Returns the configured jobs' names by "
		    "change (restarted, updated, added, removed, scaled, "
		    "unchanged) and the settings applied or not.  A file that "
		    "does not load changes nothing: the error names the place "
		    "(file:line:column) and why.",
		.params = mcp_tools_reload_params,
		.output_schema = MCP_SCHEMA_RELOAD,
		.read_only = 0,
		.start = mcp_tools_reload
	},
	{
		.name = "stack_scale",
		.title = "Run N replicas of a configured job",
		.description = "Run replicas copies of a job of the deck's "
		    "configuration, named NAME.1 to NAME.N (each with its own "
		    "PORT): the missing ones start, the highest-numbered "
		    "extra ones are stopped, the others run on.  0 stops them "
		    "all.  The count holds until the file's replicas for the "
		    "job change (see stack_reload).  Returns the configured "
		    "jobs' names by change, as stack_reload does.",
		.params = mcp_tools_scale_params,
		.output_schema = MCP_SCHEMA_RELOAD,
		.read_only = 0,
		.start = mcp_tools_scale
	},
	{ .name = NULL }
};

