//! The stdio driver: spawns the server, does the MCP handshake, then keeps
//! `workers` calls in flight, writing newline-delimited JSON on the server's
//! stdin and reading its answers from its stdout.
//!
//! A writer task sends a call each time the reader frees a slot (a
//! semaphore of `workers` permits), in batches: every slot freed since the
//! last write goes out in one `write`. It hands the id and send time of each
//! call to the reader over a channel before writing it, so that the reader,
//! which alone keeps the table of calls in flight, knows a call before its
//! answer can arrive. Requests are prebuilt ([`CallTemplate`]); only the id
//! is written per call.

use std::collections::HashMap;
use std::process::Stdio;
use std::sync::{Arc, Mutex};
use std::time::Duration;

use tokio::io::{AsyncBufReadExt, AsyncReadExt, AsyncWriteExt, BufReader};
use tokio::process::{Child, ChildStdin, ChildStdout, Command};
use tokio::sync::{Semaphore, mpsc};
use tokio::task::JoinHandle;
use tokio::time::Instant;

use crate::calls::{
    CallPath, CallTemplate, INITIALIZE_ID, INITIALIZED_NOTIFICATION, Measure, RunPlan,
    TOOLS_LIST_ID, TOOLS_LIST_REQUEST, initialize_request,
};
use crate::check::{Incoming, Tally, classify};
use crate::error::Error;
use crate::report::{Report, rss_mib};
use crate::stats::Latencies;

/// How long the server is left alone after the handshake before its idle
/// memory is read.
const IDLE_SETTLE: Duration = Duration::from_millis(200);

/// How much of the server's stderr is kept for error messages, in bytes.
const STDERR_TAIL: usize = 4096;

/// The size of the read buffer on the server's stdout, in bytes.
const READ_BUFFER: usize = 256 * 1024;

/// How long a server may take to exit once its stdin is closed, before it
/// is killed, unless [`StdioOptions::exit_grace`] says otherwise.
pub const EXIT_GRACE: Duration = Duration::from_secs(2);

/// A stdio run.
#[derive(Clone, Debug)]
pub struct StdioOptions {
    /// The server command and its arguments (spawned directly, no shell).
    pub command: Vec<String>,
    /// The call repeated.
    pub path: CallPath,
    /// The tool called ([`DEFAULT_TOOL`](crate::calls::DEFAULT_TOOL) unless the server mounts it under
    /// another name).
    pub tool: String,
    /// Send `tools/list` after the handshake and wait for its answer before
    /// the first call (a gateway answers it once its upstreams connected).
    pub list_tools: bool,
    /// Calls kept in flight (at least 1).
    pub workers: u32,
    /// Warm-up, measured part, timeout and deadline.
    pub plan: RunPlan,
    /// The server's name in the report.
    pub label: String,
    /// How long the server may take to exit once its stdin is closed, before
    /// it is killed ([`EXIT_GRACE`] unless a server needs longer, e.g. one
    /// run under valgrind, which writes its profile on exit).
    pub exit_grace: Duration,
}

/// Runs the server of `options` and measures it.
///
/// # Errors
/// When the server cannot be started, exits or closes its stdout before the
/// run is over, or does not answer the handshake within the timeout. Wrong or
/// missing answers to calls are not errors: the report counts them.
pub async fn run(options: &StdioOptions) -> Result<Report, Error> {
    let (program, arguments) = options
        .command
        .split_first()
        .ok_or_else(|| Error::Usage("no server command: give it after `--`".into()))?;
    let command_line = options.command.join(" ");
    let mut child = Command::new(program)
        .args(arguments)
        .stdin(Stdio::piped())
        .stdout(Stdio::piped())
        .stderr(Stdio::piped())
        .kill_on_drop(true)
        .spawn()
        .map_err(|source| Error::Start {
            command: command_line.clone(),
            source,
        })?;
    let started = Instant::now();
    let deadline = started + options.plan.deadline;
    let pid = child.id();
    let tail = Arc::new(Mutex::new(Vec::new()));
    if let Some(stderr) = child.stderr.take() {
        tokio::spawn(keep_tail(stderr, Arc::clone(&tail)));
    }
    let (Some(mut stdin), Some(stdout)) = (child.stdin.take(), child.stdout.take()) else {
        return Err(Error::Usage("the server's stdio could not be piped".into()));
    };
    let mut session = Session {
        reader: BufReader::with_capacity(READ_BUFFER, stdout),
        line: Vec::with_capacity(4096),
        child,
        tail,
    };

    // The handshake.
    let mut hello = initialize_request().into_bytes();
    hello.push(b'\n');
    if let Err(source) = stdin.write_all(&hello).await {
        return Err(session
            .exited("before reading initialize", Some(source))
            .await);
    }
    session
        .answer(
            |message| message.numeric_id() == Some(INITIALIZE_ID),
            "initialize",
            deadline.min(Instant::now() + options.plan.timeout),
            options.plan.timeout,
        )
        .await?;
    let mut initialized = INITIALIZED_NOTIFICATION.as_bytes().to_vec();
    initialized.push(b'\n');
    if let Err(source) = stdin.write_all(&initialized).await {
        return Err(session.exited("after initialize", Some(source)).await);
    }
    if options.list_tools {
        let mut list = TOOLS_LIST_REQUEST.as_bytes().to_vec();
        list.push(b'\n');
        if let Err(source) = stdin.write_all(&list).await {
            return Err(session.exited("after initialized", Some(source)).await);
        }
        session
            .answer(
                |message| message.id.as_ref().and_then(|id| id.as_str()) == Some(TOOLS_LIST_ID),
                "tools/list",
                deadline.min(Instant::now() + options.plan.timeout),
                options.plan.timeout,
            )
            .await?;
    }
    tokio::time::sleep(IDLE_SETTLE).await;
    let rss_idle_mib = pid.and_then(rss_mib);

    let outcome = session.load(stdin, options, deadline).await?;
    let rss_after_mib = pid.and_then(rss_mib);
    session.stop(outcome.stdin, options.exit_grace).await;

    let Measured {
        mut latencies,
        calls,
        seconds,
        tally,
        ..
    } = outcome.measured;
    let (p50_us, p99_us) = latencies.p50_p99_us();
    Ok(Report {
        label: options.label.clone(),
        transport: "stdio",
        path: options.path,
        workers: options.workers,
        connections: 1,
        seconds,
        calls,
        calls_per_s: crate::report::rate(calls, seconds),
        p50_us,
        p99_us,
        outcomes: tally,
        rss_idle_mib,
        rss_after_mib,
    })
}

/// What the measured part of a run found.
struct Measured {
    latencies: Latencies,
    /// Answers during the measured part.
    calls: u64,
    /// The measured part's length, in seconds.
    seconds: f64,
    tally: Tally,
}

/// The end of the load phase: the counts, and the server's stdin (still
/// open) when the writer gave it back.
struct LoadOutcome {
    measured: Measured,
    stdin: Option<ChildStdin>,
}

/// The server process and the reading side of its stdio.
struct Session {
    reader: BufReader<ChildStdout>,
    /// The line being read.
    line: Vec<u8>,
    child: Child,
    /// The last [`STDERR_TAIL`] bytes of the server's stderr.
    tail: Arc<Mutex<Vec<u8>>>,
}

/// One line read, or why none was.
enum Read {
    Line,
    Eof,
    TimedOut,
}

impl Session {
    /// Reads one line into `self.line` (without its newline), waiting until
    /// `until` at most when no whole line is buffered.
    async fn read_line(&mut self, until: Instant) -> Result<Read, Error> {
        self.line.clear();
        let read = if self.reader.buffer().contains(&b'\n') {
            // A whole line is buffered: no wait, no timer.
            self.reader.read_until(b'\n', &mut self.line).await
        } else {
            match tokio::time::timeout_at(until, self.reader.read_until(b'\n', &mut self.line))
                .await
            {
                Ok(read) => read,
                Err(_) => return Ok(Read::TimedOut),
            }
        };
        match read {
            Ok(0) => Ok(Read::Eof),
            Ok(_) => {
                while matches!(self.line.last(), Some(b'\n' | b'\r')) {
                    self.line.pop();
                }
                Ok(Read::Line)
            }
            Err(source) => Err(Error::Io {
                context: "reading the server's stdout".into(),
                source,
            }),
        }
    }

    /// Waits for the answer to the request `method` (the message for which
    /// `is_it` holds), skipping anything else.
    async fn answer(
        &mut self,
        is_it: impl Fn(&Incoming<'_>) -> bool,
        method: &str,
        until: Instant,
        timeout: Duration,
    ) -> Result<(), Error> {
        loop {
            match self.read_line(until).await? {
                Read::Eof => {
                    return Err(self
                        .exited(&format!("before answering {method}"), None)
                        .await);
                }
                Read::TimedOut => {
                    return Err(Error::Timeout {
                        when: format!("waiting for the answer to {method}{}", self.stderr_tail()),
                        after: timeout,
                    });
                }
                Read::Line => {}
            }
            let Ok(message) = serde_json::from_slice::<Incoming<'_>>(&self.line) else {
                // A server may log on stdout before it starts: skip.
                continue;
            };
            if message.is_from_server() || !is_it(&message) {
                continue;
            }
            if let Some(error) = message.error {
                return Err(Error::Protocol(format!(
                    "the server refused {method}: JSON-RPC error {}: {}",
                    error.code, error.message
                )));
            }
            return Ok(());
        }
    }

    /// The closed loop: calls, answers, checks, until the measured part is
    /// over and every call in flight is answered (or the timeout or deadline
    /// passes).
    async fn load(
        &mut self,
        stdin: ChildStdin,
        options: &StdioOptions,
        deadline: Instant,
    ) -> Result<LoadOutcome, Error> {
        let plan = options.plan;
        let workers = options.workers.max(1) as usize;
        let slots = Arc::new(Semaphore::new(workers));
        let (sent_tx, mut sent_rx) = mpsc::unbounded_channel::<(u64, Instant)>();
        let writer: JoinHandle<(ChildStdin, std::io::Result<()>)> = tokio::spawn(write_calls(
            stdin,
            Arc::clone(&slots),
            sent_tx,
            CallTemplate::new(options.path, &options.tool),
        ));

        let mut in_flight: HashMap<u64, Instant> = HashMap::with_capacity(workers * 2);
        let mut last_sent = 0u64;
        let mut tally = Tally::default();
        let start = Instant::now();
        let measure_start = start + plan.warmup;
        let mut measure_end = match plan.measure {
            Measure::For(length) => Some(measure_start + length),
            Measure::Calls(_) => None,
        };
        let expected_calls = match plan.measure {
            Measure::For(length) => (length.as_secs_f64() * 50_000.0) as usize,
            Measure::Calls(n) => usize::try_from(n).unwrap_or(usize::MAX),
        };
        let mut latencies = Latencies::with_capacity(expected_calls.min(10_000_000));
        let mut calls = 0u64;
        let mut stopping = false;
        let mut last_answer = Instant::now();

        let mut writer = Some(writer);
        let mut stdin_back = None;
        loop {
            if stopping {
                drain(&mut sent_rx, &mut in_flight, &mut last_sent);
                if in_flight.is_empty() {
                    // The writer ends at once on the closed semaphore, after
                    // writing the calls it took a slot for, if any.
                    let Some(handle) = writer.take() else { break };
                    stdin_back = join_writer(handle, plan.timeout, &mut tally).await;
                    drain(&mut sent_rx, &mut in_flight, &mut last_sent);
                    if in_flight.is_empty() {
                        break;
                    }
                }
            }
            let until = deadline.min(last_answer + plan.timeout);
            match self.read_line(until).await? {
                Read::Line => {}
                Read::Eof => {
                    if let Some(handle) = writer.take() {
                        handle.abort();
                    }
                    return Err(self
                        .exited(
                            &format!("during the run, after {} answers", tally.answered()),
                            None,
                        )
                        .await);
                }
                Read::TimedOut => {
                    slots.close();
                    drain(&mut sent_rx, &mut in_flight, &mut last_sent);
                    let why = if Instant::now() >= deadline {
                        format!("the run's deadline ({:?}) passed", plan.deadline)
                    } else {
                        format!("no answer for {:?}", plan.timeout)
                    };
                    tally.missing(
                        in_flight.len() as u64,
                        format!("{why} with {} calls in flight", in_flight.len()),
                    );
                    in_flight.clear();
                    if measure_end.is_none() {
                        measure_end = Some(Instant::now());
                    }
                    break;
                }
            }
            if self.line.is_empty() {
                continue;
            }
            let now = Instant::now();
            let message = match serde_json::from_slice::<Incoming<'_>>(&self.line) {
                Ok(message) => message,
                Err(error) => {
                    tally.record(crate::Outcome::Unexpected(format!(
                        "a line that is not a JSON-RPC message ({error}): {}",
                        String::from_utf8_lossy(&self.line[..self.line.len().min(200)])
                    )));
                    continue;
                }
            };
            if message.is_from_server() {
                continue;
            }
            let Some(id) = message.numeric_id() else {
                tally.record(crate::Outcome::Unexpected(format!(
                    "an answer without a numeric id: {:?}",
                    message.id
                )));
                continue;
            };
            let sent = match in_flight.remove(&id) {
                Some(sent) => Some(sent),
                None => {
                    drain(&mut sent_rx, &mut in_flight, &mut last_sent);
                    in_flight.remove(&id)
                }
            };
            let Some(sent) = sent else {
                let what = if (1..=last_sent).contains(&id) {
                    "answered twice"
                } else {
                    "never sent"
                };
                tally.record(crate::Outcome::Unexpected(format!(
                    "an answer to id {id}, {what}"
                )));
                continue;
            };
            last_answer = now;
            tally.record(classify(options.path, &message));
            if !stopping {
                slots.add_permits(1);
            }
            let in_window = now >= measure_start && measure_end.is_none_or(|end| now <= end);
            if in_window {
                calls += 1;
                if sent >= measure_start {
                    latencies.push(now - sent);
                }
            }
            if !stopping {
                let over = match plan.measure {
                    Measure::For(_) => measure_end.is_some_and(|end| now >= end),
                    Measure::Calls(target) => calls >= target,
                };
                if over || now >= deadline {
                    if measure_end.is_none() {
                        measure_end = Some(now);
                    }
                    stopping = true;
                    slots.close();
                }
            }
        }

        let end = measure_end.unwrap_or_else(Instant::now);
        let seconds = end.saturating_duration_since(measure_start).as_secs_f64();
        if let Some(handle) = writer.take() {
            stdin_back = join_writer(handle, Duration::from_millis(100), &mut tally).await;
        }
        Ok(LoadOutcome {
            measured: Measured {
                latencies,
                calls,
                seconds,
                tally,
            },
            stdin: stdin_back,
        })
    }

    /// Closes the server's stdin and waits up to `grace` for it to exit;
    /// kills it otherwise.
    async fn stop(mut self, stdin: Option<ChildStdin>, grace: Duration) {
        drop(stdin);
        if tokio::time::timeout(grace, self.child.wait())
            .await
            .is_err()
        {
            let _ = self.child.kill().await;
        }
    }

    /// The error for a server that went away, with its exit status and the
    /// end of its stderr.
    async fn exited(&mut self, when: &str, write_error: Option<std::io::Error>) -> Error {
        // Give it a moment to finish exiting and its stderr to be read.
        let status = match tokio::time::timeout(Duration::from_millis(500), self.child.wait()).await
        {
            Ok(Ok(status)) => status.to_string(),
            Ok(Err(error)) => format!("status unknown: {error}"),
            Err(_) => match write_error {
                Some(error) => format!("still running, but writing to it failed: {error}"),
                None => "still running, but it closed its stdout".into(),
            },
        };
        tokio::time::sleep(Duration::from_millis(50)).await;
        Error::Exited {
            when: when.to_owned(),
            status,
            stderr: self.stderr_tail(),
        }
    }

    /// The end of the server's stderr, introduced by a newline and indented;
    /// empty when it wrote nothing.
    fn stderr_tail(&self) -> String {
        let tail = self
            .tail
            .lock()
            .unwrap_or_else(std::sync::PoisonError::into_inner);
        let text = String::from_utf8_lossy(&tail);
        let text = text.trim_end();
        if text.is_empty() {
            return String::new();
        }
        let mut out = String::from("\nthe end of its stderr:");
        for line in text.lines() {
            out.push_str("\n  ");
            out.push_str(line);
        }
        out
    }
}

/// Waits up to `wait` for the writer task (its semaphore closed) to end,
/// and takes the server's stdin back from it; aborts it past `wait`.
async fn join_writer(
    mut handle: JoinHandle<(ChildStdin, std::io::Result<()>)>,
    wait: Duration,
    tally: &mut Tally,
) -> Option<ChildStdin> {
    match tokio::time::timeout(wait, &mut handle).await {
        Ok(Ok((stdin, written))) => {
            if let Err(error) = written {
                tally.sample(format!("writing to the server failed: {error}"));
            }
            Some(stdin)
        }
        Ok(Err(_)) => None,
        Err(_) => {
            handle.abort();
            None
        }
    }
}

/// Moves every call the writer announced into `in_flight`.
fn drain(
    sent_rx: &mut mpsc::UnboundedReceiver<(u64, Instant)>,
    in_flight: &mut HashMap<u64, Instant>,
    last_sent: &mut u64,
) {
    while let Ok((id, sent)) = sent_rx.try_recv() {
        in_flight.insert(id, sent);
        *last_sent = id;
    }
}

/// The writer task: one call per permit of `slots`, numbered from 1, every
/// permit available at once written in one batch; ends when `slots` is
/// closed (or the reader is gone) and gives the server's stdin back.
async fn write_calls(
    mut stdin: ChildStdin,
    slots: Arc<Semaphore>,
    sent_tx: mpsc::UnboundedSender<(u64, Instant)>,
    template: CallTemplate,
) -> (ChildStdin, std::io::Result<()>) {
    let mut next_id = 1u64;
    let mut batch = Vec::with_capacity(64 * 1024);
    loop {
        let Ok(permit) = slots.acquire().await else {
            return (stdin, Ok(()));
        };
        permit.forget();
        let mut count = 1;
        while let Ok(permit) = slots.try_acquire() {
            permit.forget();
            count += 1;
        }
        batch.clear();
        let now = Instant::now();
        for _ in 0..count {
            template.write(next_id, &mut batch);
            batch.push(b'\n');
            if sent_tx.send((next_id, now)).is_err() {
                return (stdin, Ok(()));
            }
            next_id += 1;
        }
        if let Err(error) = stdin.write_all(&batch).await {
            return (stdin, Err(error));
        }
    }
}

/// Reads the server's stderr to its end, keeping the last [`STDERR_TAIL`]
/// bytes.
async fn keep_tail(mut stderr: tokio::process::ChildStderr, tail: Arc<Mutex<Vec<u8>>>) {
    let mut buffer = vec![0u8; 16 * 1024];
    loop {
        let n = match stderr.read(&mut buffer).await {
            Ok(0) | Err(_) => return,
            Ok(n) => n,
        };
        let mut kept = tail
            .lock()
            .unwrap_or_else(std::sync::PoisonError::into_inner);
        kept.extend_from_slice(&buffer[..n]);
        if kept.len() > STDERR_TAIL {
            let excess = kept.len() - STDERR_TAIL;
            kept.drain(..excess);
        }
    }
}
