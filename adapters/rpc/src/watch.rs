//! [`Server::serve_watching`]: the server loop that also passes on what other
//! processes record while it waits for its host.
//!
//! Two threads take turns on one server: the calling thread reads the host's
//! lines and answers them; a watcher waits on the log and, when another process
//! records in the server's stream, writes the lines of that itself. A line from
//! the host wakes one thread (the one reading it), not a reader and then a loop.

use std::io::{self, BufReader, Read, Write};
use std::sync::atomic::{AtomicBool, AtomicU64, Ordering};
use std::sync::{Arc, Mutex, MutexGuard, PoisonError};
use std::time::Duration;

use crate::server::{Line, Server, read_line, write_lines};
use askuser_app::log::Seq;
use askuser_app::{AppError, HeadWaiter, Result};

/// How long the watcher waits on the log at a time before it checks whether the
/// server has stopped (it is woken at once by an append).
const WATCH_SLICE: Duration = Duration::from_millis(250);

/// At most this many inputs are recorded together before the log is flushed once
/// and their lines are written (a group commit; only whole lines already read
/// are grouped, so a person typing one line at a time waits for nothing).
const GROUP_MAX: usize = 256;

/// How much of the host's input is read at a time: whatever the host has written
/// (up to this) arrives in one read, and its whole lines form a group.
const READ_AHEAD: usize = 64 * 1024;

/// A line of input (its kind and text), or the error reading it.
type InputLine = io::Result<(Line, Vec<u8>)>;

/// What the two threads share: the server and its output, used by one at a time.
struct Turns<'s, W> {
    server: &'s mut Server,
    output: W,
    /// Why the watcher stopped, when it could not pass something on (the output
    /// failed): the server loop ends with it.
    failed: Option<AppError>,
}

impl Server {
    /// [`Server::serve`], also waiting on the log: when another process records
    /// something in this server's default stream (an answer given in another
    /// terminal, or by `askuser answer`), the lines it yields are written as soon
    /// as it lands ([`Server::catch_up`]), without the host sending anything.
    ///
    /// Input is read on the calling thread; the log is waited on by a thread of
    /// its own ([`Log::wait_for_others`](askuser_app::log::Log::wait_for_others):
    /// woken on a shared sled log or PostgreSQL by the append of another process
    /// itself, and not by this server's own), which writes those lines itself.
    /// The two take turns: lines are never interleaved. Inputs the host has
    /// already written are recorded as a group, with one flush of the log, and
    /// answered exactly as if each came alone.
    ///
    /// # Errors
    /// Only when reading `input` or writing `output` fails.
    pub fn serve_watching<R, W>(&mut self, input: R, mut output: W) -> Result<()>
    where
        R: Read,
        W: Write + Send,
    {
        let stream = self.stream().to_owned();
        let seen = Arc::new(AtomicU64::new(self.desk().head(&stream)?));
        let waiter = self.desk().head_waiter();
        write_lines(&mut output, &self.greeting())?;
        self.watched = Some(Arc::clone(&seen));
        let turns = Mutex::new(Turns {
            server: self,
            output,
            failed: None,
        });
        let stopped = AtomicBool::new(false);
        let served = std::thread::scope(|scope| -> Result<()> {
            // However the loop ends (a panic too), the watcher stops, and the
            // scope's wait for it ends within a slice.
            let _stop = StopWhenDone(&stopped);
            std::thread::Builder::new()
                .name("askuser-serve-watch".to_owned())
                .spawn_scoped(scope, || watch(&turns, &waiter, &stream, &seen, &stopped))?;
            serve_input(&turns, BufReader::with_capacity(READ_AHEAD, input))
        });
        let turns = turns.into_inner().unwrap_or_else(PoisonError::into_inner);
        turns.server.watched = None;
        served?;
        turns.failed.map_or(Ok(()), Err)
    }
}

/// Tells the watcher to stop when dropped.
struct StopWhenDone<'a>(&'a AtomicBool);

impl Drop for StopWhenDone<'_> {
    fn drop(&mut self) {
        self.0.store(true, Ordering::SeqCst);
    }
}

/// Reads `input` and answers it a group at a time, until it ends, reading it
/// fails, or the watcher could not write.
fn serve_input<R: Read, W: Write>(
    turns: &Mutex<Turns<'_, W>>,
    mut input: BufReader<R>,
) -> Result<()> {
    loop {
        let group = read_group(&mut input);
        let mut turn = take_turn(turns);
        if turn.failed.is_some() || turn.serve_group(group)? {
            return Ok(());
        }
    }
}

/// The next line (waiting for it), then every further whole line already read,
/// up to [`GROUP_MAX`]: never waits for a line the host has not written.
fn read_group<R: Read>(input: &mut BufReader<R>) -> Vec<InputLine> {
    let mut group = Vec::new();
    loop {
        let mut buffer = Vec::new();
        let read = read_line(input, &mut buffer);
        let more = matches!(read, Ok(Line::Text | Line::TooLong));
        group.push(read.map(|line| (line, buffer)));
        if !more || group.len() == GROUP_MAX || !input.buffer().contains(&b'\n') {
            return group;
        }
    }
}

/// Waits on the default stream and, each time another process moves its head,
/// passes on what it recorded, until `stopped`.
fn watch<W: Write>(
    turns: &Mutex<Turns<'_, W>>,
    waiter: &HeadWaiter,
    stream: &str,
    seen: &AtomicU64,
    stopped: &AtomicBool,
) {
    let mut head = seen.load(Ordering::SeqCst);
    while !stopped.load(Ordering::SeqCst) {
        match waiter.wait_for_others(stream, head, WATCH_SLICE) {
            Ok(now) if now > head => {
                // Before the turn is taken: the server reads the stream before an
                // input while this is ahead of its desk.
                seen.store(now, Ordering::SeqCst);
                let mut turn = take_turn(turns);
                match turn.catch_up(now) {
                    // What the server appended itself meanwhile is not waited for.
                    Ok(holds) => head = holds.max(now),
                    Err(error) => {
                        turn.failed = Some(error);
                        return;
                    }
                }
            }
            Ok(_) => {}
            // The log is unreachable for now: look again later.
            Err(_) => std::thread::sleep(WATCH_SLICE),
        }
    }
}

/// The server and its output, once the other thread is done with them (a thread
/// that panicked while holding them left nothing half-written that matters more
/// than going on).
fn take_turn<'t, 's, W>(turns: &'t Mutex<Turns<'s, W>>) -> MutexGuard<'t, Turns<'s, W>> {
    turns.lock().unwrap_or_else(PoisonError::into_inner)
}

impl<W: Write> Turns<'_, W> {
    /// Answers a group of input lines: records them (flushing the log once for
    /// the group), then writes their lines. Returns whether the input ended.
    fn serve_group(&mut self, group: Vec<InputLine>) -> Result<bool> {
        // One flush for a group of several lines, the results it hands over
        // recorded with it; a line alone records with the log's own durability
        // (one append and its flush are one request on a shared log).
        if group.len() > 1 {
            self.server.desk().defer_flush();
        }
        let mut lines = Vec::new();
        let mut ended = Ok(false);
        for read in group {
            match read {
                Ok((Line::End, _)) => {
                    ended = Ok(true);
                    break;
                }
                Err(error) => {
                    ended = Err(error.into());
                    break;
                }
                Ok((line, text)) => lines.extend(self.server.answer_input(&line, &text)),
            }
        }
        // Nothing recorded is shown before it is durable.
        self.server.desk().flush()?;
        write_lines(&mut self.output, &lines)?;
        ended
    }

    /// Passes on what other processes recorded through `head`, unless the
    /// server holds it already (its own append woke the watcher); the head
    /// the server holds then, its own appends included.
    fn catch_up(&mut self, head: Seq) -> Result<Seq> {
        let stream = self.server.stream().to_owned();
        if !self.server.desk().has_caught_up(&stream, head) {
            let lines = self.server.catch_up();
            self.server.desk().flush()?;
            write_lines(&mut self.output, &lines)?;
        }
        self.server.desk().head(&stream)
    }
}

#[cfg(test)]
mod tests {
    use std::io::{BufRead, BufReader, Write};
    use std::os::unix::net::UnixStream;
    use std::sync::Arc;

    use serde_json::{Value, json};

    use crate::Server;
    use askuser_app::Desk;

    #[test]
    fn an_answer_recorded_elsewhere_is_written_while_the_server_waits_for_input() {
        let log: Arc<dyn askuser_app::log::Log> = Arc::new(askuser_app::log::MemLog::new());
        answered_elsewhere(Arc::clone(&log), log);
    }

    /// The same through a shared sled log: the server owns it, and the answer
    /// comes from a client of its socket.
    #[test]
    fn an_answer_given_through_the_logs_socket_is_written_as_it_lands() {
        let dir = tempfile::tempdir().unwrap();
        let path = dir.path().join("db");
        let owner = askuser_app::location::SharedSledLog::open(&path).unwrap();
        let client = askuser_app::location::SharedSledLog::open(&path).unwrap();
        assert!(owner.is_owner() && !client.is_owner());
        answered_elsewhere(Arc::new(owner), Arc::new(client));
    }

    /// The host has written half a line when the answer comes from elsewhere:
    /// the result is written at once (the server does not wait for the rest of
    /// the line), and the rest, once written, is answered as usual: too late.
    #[test]
    fn an_answer_recorded_elsewhere_is_written_while_the_host_is_halfway_through_a_line() {
        let log: Arc<dyn askuser_app::log::Log> = Arc::new(askuser_app::log::MemLog::new());
        let (mut host, mut next, serving) = asked(Arc::clone(&log));
        write!(host, r#"{{"type":"answer","inquiry":"c1","#).unwrap();
        answer_elsewhere(log);
        assert_eq!(next(), result());
        writeln!(host, r#""question":"answer","value":false}}"#).unwrap();
        assert_eq!(
            next(),
            json!({"type": "error", "inquiry": "c1", "code": "inquiry_finished",
                "message": "inquiry \"c1\" already finished (answered); it takes no more input: show how it ended instead"})
        );
        drop(host);
        serving.join().unwrap().unwrap();
    }

    /// A server on `log` waits for its host; a server on `other` (the same log)
    /// answers its inquiry; the first writes the result unprompted.
    fn answered_elsewhere(
        log: Arc<dyn askuser_app::log::Log>,
        other: Arc<dyn askuser_app::log::Log>,
    ) {
        let (host, mut next, serving) = asked(log);
        // Another process answers; the host sends nothing, and gets the result.
        answer_elsewhere(other);
        assert_eq!(next(), result());
        drop(host);
        serving.join().unwrap().unwrap();
    }

    /// A server on `log`, serving in a thread of its own, once it showed its
    /// host the question of inquiry `c1`: the host's end of its input, the next
    /// line it writes (waiting for it), and the thread.
    fn asked(
        log: Arc<dyn askuser_app::log::Log>,
    ) -> (
        UnixStream,
        impl FnMut() -> Value,
        std::thread::JoinHandle<askuser_app::Result<()>>,
    ) {
        let (mut host, input) = UnixStream::pair().unwrap();
        let (output, from_server) = UnixStream::pair().unwrap();
        let mut lines = BufReader::new(from_server);
        let mut next = move || -> Value {
            let mut line = String::new();
            lines.read_line(&mut line).unwrap();
            serde_json::from_str(&line).unwrap()
        };
        let serving = std::thread::spawn(move || {
            let mut server = Server::new(Desk::new(log), "s").unwrap();
            server.serve_watching(input, output)
        });
        assert_eq!(next()["type"], "ready");
        writeln!(
            host,
            r#"{{"type":"ask","inquiry":"c1","dialect":"jp","arguments":{{"question":"Deploy now?","answer_type":"boolean"}}}}"#
        )
        .unwrap();
        assert_eq!(next()["type"], "prompt");
        (host, next, serving)
    }

    /// Another server on `log` answers `c1` yes.
    fn answer_elsewhere(log: Arc<dyn askuser_app::log::Log>) {
        let mut elsewhere = Server::new(Desk::new(log), "s").unwrap();
        elsewhere
            .handle_line(r#"{"type":"answer","inquiry":"c1","question":"answer","value":"yes"}"#);
    }

    /// The result line of `c1` answered yes.
    fn result() -> Value {
        json!({"type": "result", "inquiry": "c1",
            "result": {"answer_type": "boolean", "answer": true}, "cancelled": false})
    }
}
