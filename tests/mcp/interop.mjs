// interop.mjs: jobdeck mcp driven by the official MCP TypeScript SDK
// client (tests/mcp/package.json pins it), for tests/e2e/check_mcp_e2e.c.
//
//   node interop.mjs SCENARIO DECK [ARG]
//
// spawns `$JOBDECK_BIN mcp -S DECK` (with --read-only for the readonly
// scenario) through StdioClientTransport, runs one scenario, prints ONE
// JSON line of what it saw on stdout and exits 0 when every assertion
// held; otherwise it prints the failure on stderr and exits 1.  The
// server's stderr goes to ours.  The environment is passed on whole, so
// XDG_RUNTIME_DIR finds the deck the C side started.
import assert from 'node:assert/strict';
import fs from 'node:fs';
import os from 'node:os';
import path from 'node:path';

import { Client } from '@modelcontextprotocol/sdk/client/index.js';
import { StdioClientTransport } from
    '@modelcontextprotocol/sdk/client/stdio.js';
import { McpError } from '@modelcontextprotocol/sdk/types.js';

const CLIENT_NAME = 'interop-agent';
const ALL_TOOLS = ['run', 'stack_reload', 'stack_scale', 'terminal',
    'terminal_job_cancel', 'terminal_job_list', 'terminal_job_status',
    'terminal_screen', 'terminal_send_input'];
const STACK_TOOLS = ['stack_reload', 'stack_scale'];
const RO_TOOLS = ['terminal_job_list', 'terminal_job_status',
    'terminal_screen'];
const WAIT_MS = 30000;

const [scenario, deck, arg] = process.argv.slice(2);
const bin = process.env.JOBDECK_BIN;

// Every message either way, to look at the handshake and the framing.
const seen = { sent: [], received: [] };

// A transport that records what passes through a StdioClientTransport.
class Recording {
	constructor(inner) {
		this.inner = inner;
		inner.onmessage = (m) => {
			seen.received.push(m);
			this.onmessage?.(m);
		};
		inner.onerror = (e) => this.onerror?.(e);
		inner.onclose = () => this.onclose?.();
	}
	start() { return this.inner.start(); }
	send(m, o) { seen.sent.push(m); return this.inner.send(m, o); }
	close() { return this.inner.close(); }
	get pid() { return this.inner.pid; }
}

// Sleep ms.
const sleep = (ms) => new Promise((r) => setTimeout(r, ms));

// Connect a client to `jobdeck mcp -S deck` (read-only when ro).
async function connect(ro) {
	const args = ['mcp', '-S', deck];
	if (ro)
		args.push('--read-only');
	const inner = new StdioClientTransport({ command: bin, args,
	    env: { ...process.env }, stderr: 'inherit' });
	const client = new Client({ name: CLIENT_NAME, version: '1.0.0' });
	await client.connect(new Recording(inner));
	// The output validators come with the list (callTool checks
	// structuredContent against each tool's outputSchema).
	const list = await client.listTools();
	return { client, list };
}

// Call a tool that must succeed; its structuredContent.
async function call(client, name, args) {
	const r = await client.callTool({ name, arguments: args });
	assert.notEqual(r.isError, true, `${name} ${JSON.stringify(args)}: ` +
	    `isError: ${JSON.stringify(r.content)}`);
	assert.equal(typeof r.structuredContent, 'object',
	    `${name}: no structuredContent`);
	assert.ok(Array.isArray(r.content) && r.content.length > 0 &&
	    r.content[0].type === 'text', `${name}: no text content`);
	return r.structuredContent;
}

// Call a tool that must answer isError; its text.
async function callError(client, name, args) {
	const r = await client.callTool({ name, arguments: args });
	assert.equal(r.isError, true, `${name} ${JSON.stringify(args)}: ` +
	    `not an error: ${JSON.stringify(r)}`);
	return r.content.map((c) => c.text).join('');
}

// Poll terminal_job_status until test(status) holds; the last status.
async function pollStatus(client, jobId, test, args = {}) {
	const end = Date.now() + WAIT_MS;
	for (;;) {
		const s = await call(client, 'terminal_job_status',
		    { job_id: jobId, ...args });
		if (test(s))
			return s;
		assert.ok(Date.now() < end, `job ${jobId}: still ` +
		    `${JSON.stringify(s)} after ${WAIT_MS} ms`);
		await sleep(100);
	}
}

// The initialize handshake.
async function scInitialize() {
	const { client } = await connect(false);
	const info = client.getServerVersion();
	const caps = client.getServerCapabilities();
	const init = seen.received.find((m) => m.id === seen.sent[0].id);
	assert.equal(seen.sent[0].method, 'initialize');
	assert.equal(init.jsonrpc, '2.0');
	assert.equal(init.result.protocolVersion,
	    seen.sent[0].params.protocolVersion, 'the client\'s version ' +
	    '(the SDK sends the newest) must be taken');
	assert.equal(info.name, 'jobdeck');
	assert.equal(typeof info.version, 'string');
	assert.ok(info.version.length > 0);
	assert.equal(typeof caps.tools, 'object');
	const instr = client.getInstructions();
	assert.equal(typeof instr, 'string');
	assert.ok(instr.length > 20, 'instructions for the agent');
	await client.ping();
	await client.close();
	return { serverInfo: info, protocolVersion:
	    init.result.protocolVersion, capabilities: caps };
}

// Check the schemas of a tools/list answer.
function checkTools(list, names) {
	const got = list.tools.map((t) => t.name).sort();
	assert.deepEqual(got, names);
	for (const t of list.tools) {
		assert.equal(t.inputSchema.type, 'object', t.name);
		assert.equal(typeof t.inputSchema.properties, 'object',
		    t.name);
		assert.equal(t.outputSchema?.type, 'object',
		    `${t.name}: outputSchema`);
		assert.equal(typeof t.description, 'string', t.name);
		assert.ok(t.description.length > 20, t.name);
		assert.equal(t.annotations?.readOnlyHint,
		    RO_TOOLS.includes(t.name), `${t.name}: readOnlyHint`);
		if (STACK_TOOLS.includes(t.name))
			assert.equal(t.annotations?.destructiveHint, true,
			    `${t.name}: destructiveHint`);
		else if (t.name !== 'terminal_job_list' && t.name !== 'run' &&
		    t.name !== 'terminal')
			assert.ok(t.inputSchema.required.includes('job_id'),
			    `${t.name} requires job_id`);
	}
	return got;
}

// tools/list in the full profile: nine tools and their schemas.
async function scTools() {
	const { client, list } = await connect(false);
	const names = checkTools(list, ALL_TOOLS);
	const byName = Object.fromEntries(list.tools.map((t) => [t.name, t]));
	assert.deepEqual(byName.terminal.inputSchema.required, ['command']);
	assert.equal(byName.terminal.inputSchema.properties.async.type,
	    'boolean');
	assert.deepEqual(byName.run.inputSchema.required, ['command']);
	assert.equal(byName.run.inputSchema.properties.args.type, 'array');
	assert.equal(byName.run.inputSchema.properties.input_data.type,
	    'string');
	assert.ok(byName.terminal_send_input.inputSchema.required
	    .includes('text'));
	assert.equal(byName.terminal_job_list.inputSchema.properties
	    .status_filter.type, 'array');
	assert.deepEqual(byName.stack_reload.inputSchema.required, []);
	assert.deepEqual(byName.stack_scale.inputSchema.required,
	    ['name', 'replicas']);
	assert.equal(byName.stack_scale.inputSchema.properties.replicas
	    .maximum, 100);
	await client.close();
	return { tools: names };
}

// The complete lines of output text (a partial last line comes again).
function completeLines(text) {
	const parts = text.split('\n');
	parts.pop();
	return parts.map((l) => l.replace(/\r$/, ''));
}

// An async job polled with incremental status until completed: every
// line exactly once across the polls; the job listed as the agent's.
async function scAsync() {
	const { client } = await connect(false);
	const n = 60;
	const started = await call(client, 'terminal', { command:
	    `i=1; while [ $i -le ${n} ]; do echo line$i; i=$((i+1)); ` +
	    'sleep 0.02; done' });
	const jobId = started.job_id;
	assert.equal(typeof jobId, 'number', JSON.stringify(started));
	const counts = new Map();
	let polls = 0, last;
	const end = Date.now() + WAIT_MS;
	for (;;) {
		last = await call(client, 'terminal_job_status',
		    { job_id: jobId });
		polls++;
		for (const l of completeLines(last.output ?? ''))
			if (/^line\d+$/.test(l))
				counts.set(l, (counts.get(l) ?? 0) + 1);
		if (last.status === 'completed' && !last.output_truncated)
			break;
		assert.ok(['running', 'queued', 'completed'].includes(
		    last.status), JSON.stringify(last));
		assert.ok(Date.now() < end, `not completed: ` +
		    JSON.stringify(last));
		await sleep(50);
	}
	// Once more: nothing new after the end.
	const again = await call(client, 'terminal_job_status',
	    { job_id: jobId });
	for (const l of completeLines(again.output ?? ''))
		assert.ok(!/^line\d+$/.test(l), `seen again: ${l}`);
	for (let i = 1; i <= n; i++)
		assert.equal(counts.get(`line${i}`), 1,
		    `line${i} seen ${counts.get(`line${i}`) ?? 0} times`);
	assert.equal(counts.size, n);
	assert.equal(last.exit_code, 0);
	assert.equal(last.agent, CLIENT_NAME);
	// Another session has its own read position: all of it, once.
	const other = await connect(false);
	const o1 = await call(other.client, 'terminal_job_status',
	    { job_id: jobId });
	const oLines = completeLines(o1.output).filter((l) =>
	    /^line\d+$/.test(l));
	assert.equal(oLines.length, n, `the other session saw ` +
	    `${oLines.length} lines`);
	const o2 = await call(other.client, 'terminal_job_status',
	    { job_id: jobId });
	assert.equal(completeLines(o2.output).filter((l) =>
	    /^line\d+$/.test(l)).length, 0);
	await other.client.close();
	// Not incremental: the whole output again.
	const whole = await call(client, 'terminal_job_status',
	    { job_id: jobId, incremental: false });
	assert.ok(whole.output.includes('line1\n') ||
	    whole.output.includes('line1\r\n'), JSON.stringify(whole));
	assert.ok(whole.output.includes(`line${n}`));
	// The list knows it, as completed.
	const list = await call(client, 'terminal_job_list',
	    { status_filter: ['completed'] });
	const mine = list.jobs.find((j) => j.job_id === jobId);
	assert.ok(mine, `job ${jobId} not in ${JSON.stringify(list)}`);
	assert.equal(mine.status, 'completed');
	assert.equal(mine.agent, CLIENT_NAME);
	assert.equal(typeof list.total, 'number');
	assert.equal(typeof list.running, 'number');
	for (const j of list.jobs)
		assert.equal(j.status, 'completed');
	await client.close();
	return { job_id: jobId, polls, lines: counts.size, agent: last.agent };
}

// Output over the cap (64 KiB a result): incremental polls give every
// line exactly once, in order, with output_truncated and a note saying
// how to read on; offset=next_offset reads on from where a result ended.
async function scBig() {
	const { client } = await connect(false);
	const n = 30000;
	const started = await call(client, 'terminal', { command:
	    `seq 1 ${n}` });
	const jobId = started.job_id;
	await pollStatus(client, jobId, (s) => s.status === 'completed',
	    { incremental: false, offset: 0 });
	let want = 1, polls = 0, truncated = 0, notes = 0, firstNext = null;
	const end = Date.now() + WAIT_MS;
	while (want <= n) {
		const r = await client.callTool({ name: 'terminal_job_status',
		    arguments: { job_id: jobId } });
		assert.notEqual(r.isError, true, JSON.stringify(r.content));
		const s = r.structuredContent;
		polls++;
		assert.ok(s.output.length <= 64 * 1024,
		    `poll ${polls}: ${s.output.length} bytes`);
		if (s.output_truncated) {
			truncated++;
			if (/offset/.test(r.content[0].text))
				notes++;
			if (firstNext === null)
				firstNext = { next: s.next_offset, want: -1 };
		}
		for (const l of completeLines(s.output)) {
			assert.equal(l, String(want), `poll ${polls}: ` +
			    `line ${l} where ${want} was due`);
			want++;
		}
		if (firstNext !== null && firstNext.want === -1)
			firstNext.want = want;
		assert.ok(Date.now() < end, `only to ${want} of ${n}`);
		assert.ok(polls < 100, `${polls} polls`);
	}
	assert.ok(polls >= 3, `${polls} polls for ${n} lines`);
	assert.ok(truncated >= 2, `truncated ${truncated} times`);
	assert.equal(notes, truncated, 'every truncated text says how to ' +
	    'read on');
	// offset=next_offset of the first cut reads on from there.
	const o = await call(client, 'terminal_job_status',
	    { job_id: jobId, offset: firstNext.next });
	assert.equal(completeLines(o.output)[0], String(firstNext.want),
	    `offset ${firstNext.next}`);
	await client.close();
	return { job_id: jobId, lines: want - 1, polls, truncated };
}

// Cancel a running job: previous status running, then canceled; a
// second cancel is refused.
async function scCancel() {
	const { client } = await connect(false);
	const started = await call(client, 'terminal', { command:
	    'sleep 300' });
	const jobId = started.job_id;
	await pollStatus(client, jobId, (s) => s.status === 'running');
	const c = await call(client, 'terminal_job_cancel',
	    { job_id: jobId });
	assert.equal(c.success, true);
	assert.equal(c.previous_status, 'running');
	assert.equal(typeof c.message, 'string');
	const s = await pollStatus(client, jobId,
	    (x) => x.status === 'canceled');
	const again = await callError(client, 'terminal_job_cancel',
	    { job_id: jobId });
	assert.match(again, /not running/);
	await client.close();
	return { job_id: jobId, previous_status: c.previous_status,
	    status: s.status, refused: again };
}

// Answer a read -p prompt through terminal_send_input.
async function scPrompt() {
	const { client } = await connect(false);
	const started = await call(client, 'terminal', { command:
	    'read -p \'Password: \' x; echo got=$x' });
	const jobId = started.job_id;
	let text = '';
	await pollStatus(client, jobId, (s) => {
		text += s.output ?? '';
		return text.includes('Password:');
	}, { incremental: false });
	const sent = await call(client, 'terminal_send_input',
	    { job_id: jobId, text: 's3cret\n' });
	assert.equal(sent.success, true);
	const s = await pollStatus(client, jobId,
	    (x) => x.status === 'completed', { incremental: false });
	assert.match(s.output, /got=s3cret/);
	assert.equal(s.exit_code, 0);
	await client.close();
	return { job_id: jobId, output: s.output };
}

// A full-screen program (less on a file of known lines) read through
// terminal_screen.
async function scScreen() {
	const { client } = await connect(false);
	const dir = fs.mkdtempSync(path.join(os.tmpdir(), 'jd-mcp-'));
	const file = path.join(dir, 'rows.txt');
	let body = '';
	for (let i = 1; i <= 200; i++)
		body += `row ${String(i).padStart(3, '0')} of the file\n`;
	fs.writeFileSync(file, body);
	const started = await call(client, 'terminal', { command:
	    `less ${file}`, env: { LESS: '', LESSOPEN: '' } });
	const jobId = started.job_id;
	const end = Date.now() + WAIT_MS;
	let scr;
	for (;;) {
		scr = await call(client, 'terminal_screen', { job_id: jobId });
		if (scr.alt_screen && scr.lines.length > 2 &&
		    scr.lines[0] === 'row 001 of the file')
			break;
		assert.ok(Date.now() < end, JSON.stringify(scr));
		await sleep(100);
	}
	assert.equal(scr.job_id, jobId);
	assert.equal(scr.lines.length, scr.rows);
	assert.equal(typeof scr.cols, 'number');
	assert.equal(typeof scr.cursor.row, 'number');
	// Every row but less's last one is the file's, in order.
	for (let i = 0; i < scr.rows - 1; i++)
		assert.equal(scr.lines[i],
		    `row ${String(i + 1).padStart(3, '0')} of the file`);
	await call(client, 'terminal_send_input', { job_id: jobId,
	    text: 'q' });
	const s = await pollStatus(client, jobId,
	    (x) => x.status === 'completed');
	fs.rmSync(dir, { recursive: true });
	await client.close();
	return { job_id: jobId, rows: scr.rows, cols: scr.cols,
	    first: scr.lines[0], status: s.status };
}

// One-shot runs: a timeout, stdout and stderr apart with input_data, a
// program that is not there.
async function scRun() {
	const { client } = await connect(false);
	const t0 = Date.now();
	const slow = await client.callTool({ name: 'run', arguments:
	    { command: 'sleep', args: ['10'], timeout: 1 } });
	const slowMs = Date.now() - t0;
	const ss = slow.structuredContent;
	assert.equal(ss.timed_out, true, JSON.stringify(slow));
	assert.equal(ss.return_code, 124);
	assert.equal(ss.success, false);
	assert.match(ss.error, /timed out/);
	assert.ok(slowMs < 9000, `run took ${slowMs} ms`);
	const r = await call(client, 'run', { command: 'sh', args: ['-c',
	    'cat; echo err >&2; exit 3'], input_data: 'hello\nworld\n' });
	assert.equal(r.stdout, 'hello\nworld\n');
	assert.equal(r.stderr, 'err\n');
	assert.equal(r.return_code, 3);
	assert.equal(r.success, false);
	assert.equal(r.timed_out, false);
	assert.equal(typeof r.duration_ms, 'number');
	const ok = await call(client, 'run', { command: 'echo',
	    args: ['{greeting}', 'world'], params: { greeting: 'hi' } });
	assert.equal(ok.stdout, 'hi world\n');
	assert.equal(ok.return_code, 0);
	assert.equal(ok.success, true);
	// terminal with async false: waits, then the output and exit code.
	const sync = await call(client, 'terminal', { command:
	    'echo sync-out; exit 3', async: false, timeout: 30 });
	assert.equal(sync.status, 'failed', JSON.stringify(sync));
	assert.equal(sync.exit_code, 3);
	assert.equal(sync.timed_out, false);
	assert.match(sync.output, /sync-out/);
	const slowSync = await call(client, 'terminal', { command:
	    'sleep 30', async: false, timeout: 1 });
	assert.equal(slowSync.timed_out, true, JSON.stringify(slowSync));
	assert.equal(slowSync.status, 'running');
	await call(client, 'terminal_job_cancel', { job_id:
	    slowSync.job_id });
	// cwd and env reach the job.
	const dir = fs.mkdtempSync(path.join(os.tmpdir(), 'jd-mcp-'));
	const ce = await call(client, 'terminal', { command:
	    'echo "foo=$FOO"; pwd', cwd: dir, env: { FOO: 'bar baz' },
	    async: false });
	assert.match(ce.output, /foo=bar baz/);
	assert.ok(ce.output.includes(dir), ce.output);
	// A file that is not executable: Permission denied, 126.
	const noexec = path.join(dir, 'noexec.sh');
	fs.writeFileSync(noexec, '#!/bin/sh\necho no\n', { mode: 0o644 });
	const pd = await client.callTool({ name: 'run', arguments:
	    { command: noexec } });
	assert.equal(pd.structuredContent?.return_code, 126,
	    JSON.stringify(pd));
	assert.match(pd.structuredContent.error, /Permission denied/);
	fs.rmSync(dir, { recursive: true });
	const nf = await client.callTool({ name: 'run', arguments:
	    { command: '/nonexistent/jobdeck-prog' } });
	const ns = nf.structuredContent;
	assert.equal(ns?.return_code, 127, JSON.stringify(nf));
	assert.match(ns.error, /not found/);
	await client.close();
	return { timed_out: ss.timed_out, timeout_ms: slowMs,
	    stdout: r.stdout, stderr: r.stderr, return_code: r.return_code,
	    not_found: ns.error };
}

// The read-only profile: three tools; a cancel of job ARG refused; the
// job untouched.
async function scReadOnly() {
	const { client, list } = await connect(true);
	const names = checkTools(list, RO_TOOLS);
	const jobId = Number(arg);
	let refused;
	try {
		const r = await client.callTool({ name: 'terminal_job_cancel',
		    arguments: { job_id: jobId } });
		refused = { isError: r.isError, text: r.content?.[0]?.text };
		assert.equal(r.isError, true, JSON.stringify(r));
	} catch (e) {
		assert.ok(e instanceof McpError, String(e));
		refused = { code: e.code, message: e.message };
	}
	assert.match(JSON.stringify(refused), /read-only/);
	let refusedRun;
	try {
		const r = await client.callTool({ name: 'terminal',
		    arguments: { command: 'echo hi' } });
		assert.equal(r.isError, true, JSON.stringify(r));
		refusedRun = true;
	} catch (e) {
		assert.ok(e instanceof McpError, String(e));
		refusedRun = true;
	}
	const s = await call(client, 'terminal_job_status',
	    { job_id: jobId });
	assert.equal(s.status, 'running');
	const l = await call(client, 'terminal_job_list', {});
	assert.ok(l.jobs.some((j) => j.job_id === jobId));
	const scr = await call(client, 'terminal_screen', { job_id: jobId });
	assert.equal(scr.job_id, jobId);
	await client.close();
	return { tools: names, refused, refused_terminal: refusedRun,
	    status: s.status };
}

// 200 terminal calls at once, three in four waiting for their job's end
// (async false, on jobs that last two seconds, so 150 waits are live at
// once): each is answered with a job of its own, none refused for the
// deck's limits (72 were: the mcp's requests, each a connection, hit the
// socket's 128 places, which live waits held).
async function scBurst() {
	const { client } = await connect(false);
	const n = 200;
	const calls = [];
	for (let i = 0; i < n; i++) {
		const args = { command: `echo burst-${i}` };
		if (i % 4 !== 0) {
			args.command = `sleep 2; echo burst-${i}`;
			args.async = false;
			args.timeout = 60;
		}
		calls.push(client.callTool({ name: 'terminal', arguments: args },
		    undefined, { timeout: 80000 }));
	}
	const results = await Promise.all(calls);
	const failed = results.filter((r) => r.isError === true);
	assert.equal(failed.length, 0, `${failed.length} of ${n} failed, ` +
	    `the first: ${JSON.stringify(failed[0]?.content)}`);
	const ids = new Set(results.map((r) => r.structuredContent.job_id));
	assert.equal(ids.size, n, `${ids.size} distinct jobs`);
	for (let i = 0; i < n; i++) {
		if (i % 4 === 0)
			continue;
		const sc = results[i].structuredContent;
		assert.equal(sc.status, 'completed', JSON.stringify(sc));
		assert.match(sc.output, new RegExp(`burst-${i}\\b`));
	}
	await client.close();
	return { calls: n, answered: results.length, jobs: ids.size };
}

// Poll terminal_job_list until test(jobs) holds; the jobs.
async function pollJobs(client, test) {
	const end = Date.now() + WAIT_MS;
	for (;;) {
		const l = await call(client, 'terminal_job_list', {});
		if (test(l.jobs))
			return l.jobs;
		assert.ok(Date.now() < end, `jobs: ${JSON.stringify(l.jobs)}`);
		await sleep(100);
	}
}

// Whether jobs has a running job called name.
const runs = (jobs, name) => jobs.some((j) => j.name === name &&
    j.status === 'running');

// The deck's configuration file ARG (one job, web) changed under it:
// stack_reload starts the job added and names it, the other untouched;
// stack_scale runs two replicas of web; a file that does not load and a
// job that is not configured are tool errors in the deck's words.  (The
// SDK checks each structuredContent against the tool's outputSchema.)
async function scStack() {
	const { client } = await connect(false);
	const web = 'name = "web"\ncommand = "sleep 301"\n';
	const same = await call(client, 'stack_reload', {});
	assert.deepEqual(same.unchanged, ['web'], JSON.stringify(same));
	assert.deepEqual(same.added, []);
	const before = await pollJobs(client, (jobs) => runs(jobs, 'web'));
	const webId = before.find((j) => j.name === 'web').job_id;
	fs.writeFileSync(arg, `[[job]]\n${web}\n[[job]]\nname = "extra"\n` +
	    'command = "sleep 302"\n');
	const r = await client.callTool({ name: 'stack_reload',
	    arguments: {} });
	assert.notEqual(r.isError, true, JSON.stringify(r.content));
	const rs = r.structuredContent;
	assert.deepEqual(rs.added, ['extra'], JSON.stringify(rs));
	assert.deepEqual(rs.unchanged, ['web']);
	assert.deepEqual(rs.removed, []);
	assert.match(rs.summary, /^reload: 0 restarted, 1 added, 0 removed, /);
	assert.ok(rs.jobs.some((j) => j.name === 'extra' &&
	    j.change === 'added'), JSON.stringify(rs.jobs));
	assert.match(r.content[0].text, /^reload: .*\nadded: extra\n/);
	const after = await pollJobs(client, (jobs) => runs(jobs, 'extra'));
	assert.ok(after.some((j) => j.job_id === webId && j.name === 'web' &&
	    j.status === 'running'), `web was touched: ${JSON.stringify(after)}`);
	const sc = await call(client, 'stack_scale', { name: 'web',
	    replicas: 2 });
	assert.deepEqual(sc.scaled, ['web'], JSON.stringify(sc));
	const w = sc.jobs.find((j) => j.name === 'web');
	assert.equal(w.replicas_before, 1);
	assert.equal(w.replicas_after, 2);
	await pollJobs(client, (jobs) => runs(jobs, 'web.1') &&
	    runs(jobs, 'web.2'));
	fs.writeFileSync(arg, '[[job]]\nname = "web"\ncommand = sleep\n');
	const broken = await callError(client, 'stack_reload', {});
	assert.match(broken, /mcp\.toml:3:\d+: /);
	const nope = await callError(client, 'stack_scale', { name: 'nope',
	    replicas: 1 });
	assert.match(nope, /no configured job named nope/);
	await client.close();
	return { added: rs.added, summary: rs.summary, text: r.content[0].text,
	    scaled: sc.scaled, replicas: w.replicas_after, broken, nope };
}

const scenarios = { initialize: scInitialize, tools: scTools,
    async: scAsync, big: scBig, cancel: scCancel, prompt: scPrompt, screen: scScreen,
    run: scRun, readonly: scReadOnly, burst: scBurst, stack: scStack };

// Run the scenario named on the command line.
async function main() {
	assert.ok(bin, 'JOBDECK_BIN is not set');
	assert.ok(deck, 'usage: node interop.mjs SCENARIO DECK [ARG]');
	const fn = scenarios[scenario];
	assert.ok(fn, `unknown scenario: ${scenario}`);
	const out = await fn();
	for (const m of seen.received)
		assert.equal(m.jsonrpc, '2.0');
	process.stdout.write(JSON.stringify({ scenario, ok: true, ...out }) +
	    '\n');
}

main().then(() => process.exit(0), (e) => {
	process.stderr.write(`interop ${scenario}: ${e?.stack ?? e}\n`);
	process.exit(1);
});
