//! [`Server::serve_watching`]: the server loop that also passes on what other
//! processes record while it waits for its host.

use std::io::{self, BufRead, Write};
use std::sync::Arc;
use std::sync::atomic::{AtomicBool, AtomicU64, Ordering};
use std::sync::mpsc;
use std::time::Duration;

use crate::server::{Line, Server, read_line, write_line, write_lines};
use askuser_app::Result;
use askuser_app::log::Seq;

/// How long the watcher waits on the log at a time before it checks whether the
/// server has stopped (it is woken at once by an append).
const WATCH_SLICE: Duration = Duration::from_millis(250);

/// At most this many inputs are recorded together before the log is flushed once
/// and their lines are written (a group commit; only inputs already waiting are
/// grouped, so a person typing one line at a time waits for nothing).
const GROUP_MAX: usize = 256;

/// How many wakes may wait for the server loop: the input thread reads no further
/// ahead than this, so memory does not grow with a host that writes faster than
/// the log records.
const WAKES_QUEUED: usize = 2 * GROUP_MAX;

/// What the server loop is woken by.
enum Wake {
    /// A line of input (its kind and text), or the error reading it.
    Input(io::Result<(Line, Vec<u8>)>),
    /// The default stream's head moved, to this.
    Moved(Seq),
}

impl Server {
    /// [`Server::serve`], also waiting on the log: when another process records
    /// something in this server's default stream (an answer given in another
    /// terminal, or by `askuser answer`), the lines it yields are written as soon
    /// as it lands ([`Server::catch_up`]), without the host sending anything.
    ///
    /// Input is read on a thread of its own, and the log is waited on by another
    /// ([`Log::wait_for_others`](askuser_app::log::Log::wait_for_others): woken
    /// on a shared sled log by the append of another process itself, and not by
    /// this server's own).
    ///
    /// # Errors
    /// Only when reading `input` or writing `output` fails.
    pub fn serve_watching<R, W>(&mut self, input: R, mut output: W) -> Result<()>
    where
        R: BufRead + Send + 'static,
        W: Write,
    {
        let (sender, wakes) = mpsc::sync_channel(WAKES_QUEUED);
        spawn_reader(input, sender.clone())?;
        let stopped = Arc::new(AtomicBool::new(false));
        let stream = self.stream().to_owned();
        let seen = Arc::new(AtomicU64::new(self.desk().head(&stream)?));
        self.watched = Some(Arc::clone(&seen));
        let watcher = self.spawn_watcher(sender, Arc::clone(&stopped), seen)?;
        let served = self.serve_wakes(&wakes, &mut output);
        self.watched = None;
        stopped.store(true, Ordering::SeqCst);
        drop(wakes);
        drop(watcher.join());
        served
    }

    fn serve_wakes<W: Write>(
        &mut self,
        wakes: &mpsc::Receiver<Wake>,
        output: &mut W,
    ) -> Result<()> {
        for line in self.greeting() {
            write_line(output, &line)?;
        }
        loop {
            let Ok(first) = wakes.recv() else {
                return Ok(());
            };
            let mut group = vec![first];
            while group.len() < GROUP_MAX
                && let Ok(wake) = wakes.try_recv()
            {
                group.push(wake);
            }
            if self.serve_group(group, output)? {
                return Ok(());
            }
        }
    }

    /// Answers a group of wakes: records their inputs (flushing the log once for the
    /// group), then writes their lines. Returns whether the input ended.
    fn serve_group<W: Write>(&mut self, group: Vec<Wake>, output: &mut W) -> Result<bool> {
        // One flush for a group of several wakes, the results it hands over
        // recorded with it; a wake alone records with the log's own durability
        // (one append and its flush are one request on a shared log).
        if group.len() > 1 {
            self.desk().defer_flush();
        }
        let mut lines = Vec::new();
        let mut ended = Ok(false);
        for wake in group {
            match wake {
                Wake::Input(Ok((Line::End, _))) => {
                    ended = Ok(true);
                    break;
                }
                Wake::Input(Err(error)) => {
                    ended = Err(error.into());
                    break;
                }
                Wake::Input(Ok((line, text))) => lines.extend(self.answer_input(&line, &text)),
                // Woken by its own append: nothing to catch up on.
                Wake::Moved(head) if self.has_caught_up(head) => {}
                Wake::Moved(_) => lines.extend(self.catch_up()),
            }
        }
        // Nothing recorded is shown before it is durable.
        self.desk().flush()?;
        write_lines(output, &lines)?;
        ended
    }

    /// Whether the desk already holds the default stream through `head`.
    fn has_caught_up(&mut self, head: Seq) -> bool {
        let stream = self.stream().to_owned();
        self.desk().has_caught_up(&stream, head)
    }

    /// A thread waiting on the default stream, sending [`Wake::Moved`] each time its
    /// head moves, until `stopped`.
    fn spawn_watcher(
        &mut self,
        sender: mpsc::SyncSender<Wake>,
        stopped: Arc<AtomicBool>,
        watched: Arc<AtomicU64>,
    ) -> Result<std::thread::JoinHandle<()>> {
        let stream = self.stream().to_owned();
        let mut head = watched.load(Ordering::SeqCst);
        let log = self.desk().head_waiter();
        Ok(std::thread::Builder::new()
            .name("askuser-serve-watch".to_owned())
            .spawn(move || {
                while !stopped.load(Ordering::SeqCst) {
                    match log.wait_for_others(&stream, head, WATCH_SLICE) {
                        Ok(now) if now > head => {
                            head = now;
                            // Before the wake is sent: the server reads the stream
                            // before an input while this is ahead of its desk.
                            watched.store(now, Ordering::SeqCst);
                            if sender.send(Wake::Moved(now)).is_err() {
                                return;
                            }
                        }
                        Ok(_) => {}
                        // The log is unreachable for now: look again later.
                        Err(_) => std::thread::sleep(WATCH_SLICE),
                    }
                }
            })?)
    }
}

/// A thread reading `input` line by line into `sender`, until it ends.
fn spawn_reader<R: BufRead + Send + 'static>(
    mut input: R,
    sender: mpsc::SyncSender<Wake>,
) -> io::Result<()> {
    std::thread::Builder::new()
        .name("askuser-serve-input".to_owned())
        .spawn(move || {
            let mut buffer = Vec::new();
            loop {
                let read = read_line(&mut input, &mut buffer);
                let more = matches!(read, Ok(Line::Text | Line::TooLong));
                let wake = Wake::Input(read.map(|line| (line, std::mem::take(&mut buffer))));
                if sender.send(wake).is_err() || !more {
                    return;
                }
            }
        })
        .map(drop)
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

    /// A server on `log` waits for its host; a server on `other` (the same log)
    /// answers its inquiry; the first writes the result unprompted.
    fn answered_elsewhere(
        log: Arc<dyn askuser_app::log::Log>,
        other: Arc<dyn askuser_app::log::Log>,
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
            server.serve_watching(BufReader::new(input), output)
        });
        assert_eq!(next()["type"], "ready");
        writeln!(
            host,
            r#"{{"type":"ask","inquiry":"c1","dialect":"jp","arguments":{{"question":"Deploy now?","answer_type":"boolean"}}}}"#
        )
        .unwrap();
        assert_eq!(next()["type"], "prompt");
        // Another process answers; the host sends nothing, and gets the result.
        let mut elsewhere = Server::new(Desk::new(other), "s").unwrap();
        elsewhere
            .handle_line(r#"{"type":"answer","inquiry":"c1","question":"answer","value":"yes"}"#);
        assert_eq!(
            next(),
            json!({"type": "result", "inquiry": "c1",
                "result": {"answer_type": "boolean", "answer": true}, "cancelled": false})
        );
        drop(host);
        serving.join().unwrap().unwrap();
    }
}
