//! The accept loop: every connection is bounded before a byte of it reaches the
//! router, so whoever can reach the port cannot lock the person out.
//!
//! - **Time.** A request's head (request line and headers) must arrive whole
//!   within [`HEADER_TIMEOUT`], counted from when the server starts waiting for
//!   it: on a new connection (after its TLS handshake, itself limited to
//!   [`HANDSHAKE_TIMEOUT`]) and after each answer on a kept-alive one, so the
//!   same bound closes a connection that sends nothing, one that trickles its
//!   headers, and one left idle between requests. Once the head is in, reading
//!   the body and making the answer must end within [`REQUEST_DEADLINE`] (408
//!   otherwise); an event stream's later events are not counted.
//! - **Number.** A connection is *unproven* from its accept until a request on
//!   it shows this server's secret (the right `Host` with the token cookie, or
//!   the printed link's `?token=`), checked on the request's head before any
//!   body is read. At most [`MAX_UNPROVEN_PER_PEER`] unproven connections of one
//!   peer (an IPv4 address, an IPv6 /64) and [`MAX_UNPROVEN`] in all are held:
//!   a new connection over either cap closes the oldest unproven connection of
//!   its own peer, or of the peer that holds the most, and is served. So an
//!   attacker holding the maximum, even from the person's own loopback address,
//!   only closes their own connections, while the person's new connection sends
//!   its head within a round trip and is proven. Proven connections are never
//!   closed for another. All connections together are at most
//!   [`MAX_CONNECTIONS`] (under the usual limit of 1,024 descriptors); one over
//!   it is answered a short 503 page and closed (at most [`MAX_REFUSING`] at a
//!   time, each within [`HEADER_TIMEOUT`]; beyond that it is closed unanswered).
//! - **Heads.** Hyper sees a request's head only once the [`head::Gate`] has
//!   read it whole (at most [`head::MAX_HEAD`] bytes) and checked it as hyper
//!   would; one hyper would refuse with its own bare page is answered by the
//!   gate with the security headers every page carries (400, 411, 431).

use std::collections::{HashMap, VecDeque};
use std::convert::Infallible;
use std::net::IpAddr;
use std::sync::atomic::{AtomicBool, Ordering};
use std::sync::{Arc, Mutex, MutexGuard, PoisonError};
use std::time::Duration;

use axum::Router;
use axum::body::Body;
use axum::http::{HeaderValue, Request, Response, StatusCode, header};
use hyper::body::Incoming;
use hyper_util::rt::{TokioIo, TokioTimer};
use tokio::io::{AsyncRead, AsyncWrite};
use tokio::net::{TcpListener, TcpStream};
use tokio::sync::{Semaphore, oneshot};
use tokio_rustls::TlsAcceptor;
use tower_service::Service as _;

use crate::app::{App, admitted, page};
use crate::pages;

/// How long a request's head may take to arrive, from when the server starts
/// waiting for it (a new connection, or the end of the previous answer: the
/// idle bound of a kept-alive connection too).
pub(crate) const HEADER_TIMEOUT: Duration = Duration::from_secs(5);
/// How long a request may take once its head is in: its body read and its
/// answer made.
pub(crate) const REQUEST_DEADLINE: Duration = Duration::from_secs(30);
/// How long a client has to finish its TLS handshake.
pub(crate) const HANDSHAKE_TIMEOUT: Duration = Duration::from_secs(10);
/// The most connections open at once, proven or not.
pub(crate) const MAX_CONNECTIONS: usize = 512;
/// The most connections held at once that have not shown the secret yet.
pub(crate) const MAX_UNPROVEN: usize = 128;
/// The most connections of one peer held at once that have not shown the
/// secret yet (a browser opens 6 to a server).
pub(crate) const MAX_UNPROVEN_PER_PEER: usize = 32;
/// How many connections over [`MAX_CONNECTIONS`] are answered 503 at once.
const MAX_REFUSING: usize = 16;
/// The most bytes hyper buffers per connection: a whole head that passed the
/// [`head::Gate`] (at most [`head::MAX_HEAD`]) and some of its body.
const MAX_BUFFER: usize = 2 * head::MAX_HEAD;
/// The pause after the listener fails to accept (descriptors run out), so the
/// loop does not spin while connections close.
const ACCEPT_PAUSE: Duration = Duration::from_millis(50);

/// The bounds the server keeps (see the module's doc); the defaults are the
/// constants above, and the tests lower them.
#[derive(Debug, Clone, Copy)]
pub(crate) struct Limits {
    pub(crate) header_timeout: Duration,
    pub(crate) request_deadline: Duration,
    pub(crate) handshake_timeout: Duration,
    pub(crate) connections: usize,
    pub(crate) unproven: usize,
    pub(crate) unproven_per_peer: usize,
}

impl Default for Limits {
    fn default() -> Self {
        Self {
            header_timeout: HEADER_TIMEOUT,
            request_deadline: REQUEST_DEADLINE,
            handshake_timeout: HANDSHAKE_TIMEOUT,
            connections: MAX_CONNECTIONS,
            unproven: MAX_UNPROVEN,
            unproven_per_peer: MAX_UNPROVEN_PER_PEER,
        }
    }
}

/// A peer as the caps count it: an IPv4 address (an IPv4-mapped IPv6 one
/// too), or the /64 of an IPv6 address (what one host usually holds).
fn peer_of(ip: IpAddr) -> IpAddr {
    match ip {
        IpAddr::V4(_) => ip,
        IpAddr::V6(v6) => match v6.to_ipv4_mapped() {
            Some(v4) => IpAddr::V4(v4),
            None => IpAddr::V6((u128::from(v6) & !u128::from(u64::MAX)).into()),
        },
    }
}

/// An unproven connection, and how to close it for a newer one.
struct Waiting {
    id: u64,
    evict: oneshot::Sender<()>,
}

/// What the pool holds: how many connections are open, and the unproven
/// ones of each peer, oldest first.
#[derive(Default)]
struct Held {
    open: usize,
    next: u64,
    unproven: HashMap<IpAddr, VecDeque<Waiting>>,
    unproven_count: usize,
}

impl Held {
    /// Closes `peer`'s oldest unproven connection.
    fn evict_oldest(&mut self, peer: IpAddr) {
        if let Some(queue) = self.unproven.get_mut(&peer) {
            if let Some(oldest) = queue.pop_front() {
                // Its task may have ended already: nothing to close then.
                let _ = oldest.evict.send(());
                self.unproven_count -= 1;
            }
            if queue.is_empty() {
                self.unproven.remove(&peer);
            }
        }
    }

    /// The peer with the most unproven connections (of two, the one whose
    /// oldest is older).
    fn busiest(&self) -> Option<IpAddr> {
        let oldest = |queue: &VecDeque<Waiting>| queue.front().map_or(u64::MAX, |w| w.id);
        (self.unproven.iter())
            .max_by_key(|(_, queue)| (queue.len(), std::cmp::Reverse(oldest(queue))))
            .map(|(peer, _)| *peer)
    }

    /// Takes connection `id` of `peer` off the unproven ones, if it is there.
    fn forget(&mut self, peer: IpAddr, id: u64) {
        if let Some(queue) = self.unproven.get_mut(&peer) {
            if let Some(at) = queue.iter().position(|w| w.id == id) {
                queue.remove(at);
                self.unproven_count -= 1;
            }
            if queue.is_empty() {
                self.unproven.remove(&peer);
            }
        }
    }
}

/// Every open connection, counted against [`Limits`].
struct Pool {
    limits: Limits,
    held: Mutex<Held>,
}

impl Pool {
    fn held(&self) -> MutexGuard<'_, Held> {
        self.held.lock().unwrap_or_else(PoisonError::into_inner)
    }

    /// A slot for a new connection from `ip`, unproven, with what tells it it
    /// was closed for a newer one; `None` when [`Limits::connections`] are open.
    fn admit(self: &Arc<Self>, ip: IpAddr) -> Option<(Slot, oneshot::Receiver<()>)> {
        let peer = peer_of(ip);
        let mut held = self.held();
        if held.open >= self.limits.connections {
            return None;
        }
        let of_peer = held.unproven.get(&peer).map_or(0, VecDeque::len);
        if of_peer >= self.limits.unproven_per_peer {
            held.evict_oldest(peer);
        } else if held.unproven_count >= self.limits.unproven
            && let Some(busiest) = held.busiest()
        {
            held.evict_oldest(busiest);
        }
        held.open += 1;
        held.next += 1;
        let id = held.next;
        let (evict, evicted) = oneshot::channel();
        held.unproven
            .entry(peer)
            .or_default()
            .push_back(Waiting { id, evict });
        held.unproven_count += 1;
        let slot = Slot {
            pool: Arc::clone(self),
            id,
            peer,
            proven: AtomicBool::new(false),
        };
        Some((slot, evicted))
    }
}

/// One open connection's place in the [`Pool`], given back when dropped.
struct Slot {
    pool: Arc<Pool>,
    id: u64,
    peer: IpAddr,
    proven: AtomicBool,
}

impl Slot {
    /// The connection showed the secret: it is no longer closed for another.
    fn prove(&self) {
        if !self.proven.swap(true, Ordering::Relaxed) {
            self.pool.held().forget(self.peer, self.id);
        }
    }
}

impl Drop for Slot {
    fn drop(&mut self) {
        let mut held = self.pool.held();
        held.forget(self.peer, self.id);
        held.open -= 1;
    }
}

/// Serves `router` on `listener` (TLS with `tls`) within `limits`, until the
/// process ends.
pub(crate) async fn serve(
    listener: TcpListener,
    tls: Option<Arc<rustls::ServerConfig>>,
    router: Router,
    app: App,
    limits: Limits,
) {
    let pool = Arc::new(Pool {
        limits,
        held: Mutex::default(),
    });
    let refusing = Arc::new(Semaphore::new(MAX_REFUSING));
    let tls = tls.map(TlsAcceptor::from);
    loop {
        let (tcp, addr) = match listener.accept().await {
            Ok(accepted) => accepted,
            Err(error) => {
                let reset = matches!(
                    error.kind(),
                    std::io::ErrorKind::ConnectionAborted | std::io::ErrorKind::ConnectionReset
                );
                if !reset {
                    tokio::time::sleep(ACCEPT_PAUSE).await;
                }
                continue;
            }
        };
        let _ = tcp.set_nodelay(true);
        let tls = tls.clone();
        match pool.admit(addr.ip()) {
            Some((slot, evicted)) => {
                let (router, app) = (router.clone(), app.clone());
                tokio::spawn(async move {
                    tokio::select! {
                        () = connection(tcp, tls, limits, router, app, slot) => {}
                        Ok(()) = evicted => {}
                    }
                });
            }
            None => {
                if let Ok(permit) = Arc::clone(&refusing).try_acquire_owned() {
                    tokio::spawn(async move {
                        let refused = refuse(tcp, tls, limits);
                        let _ = tokio::time::timeout(limits.header_timeout, refused).await;
                        drop(permit);
                    });
                }
            }
        }
    }
}

/// One admitted connection: its handshake, then its requests, each proving
/// the connection when it shows the secret and answered within
/// [`Limits::request_deadline`].
async fn connection(
    tcp: TcpStream,
    tls: Option<TlsAcceptor>,
    limits: Limits,
    router: Router,
    app: App,
    slot: Slot,
) {
    let service = hyper::service::service_fn(move |request: Request<Incoming>| {
        if admitted(&app, request.headers(), request.uri()) {
            slot.prove();
        }
        let answer = router.clone().call(request);
        async move {
            match tokio::time::timeout(limits.request_deadline, answer).await {
                Ok(answered) => answered,
                Err(_) => Ok(too_slow(limits.request_deadline)),
            }
        }
    });
    match tls {
        Some(acceptor) => {
            let handshake = tokio::time::timeout(limits.handshake_timeout, acceptor.accept(tcp));
            if let Ok(Ok(stream)) = handshake.await {
                http(stream, &limits, true, service).await;
            }
        }
        None => http(tcp, &limits, true, service).await,
    }
}

/// A connection over [`Limits::connections`]: its handshake, then a 503 page
/// to its first request, and close.
async fn refuse(tcp: TcpStream, tls: Option<TlsAcceptor>, limits: Limits) {
    let service =
        hyper::service::service_fn(|_: Request<Incoming>| async { Ok::<_, Infallible>(busy()) });
    match tls {
        Some(acceptor) => {
            if let Ok(stream) = acceptor.accept(tcp).await {
                http(stream, &limits, false, service).await;
            }
        }
        None => http(tcp, &limits, false, service).await,
    }
}

/// HTTP/1.1 on `io` with the head timeout and the buffer bound, each head
/// read and checked by the [`head::Gate`] before hyper sees it: a refused one
/// is answered by the gate once hyper has answered the requests before it.
async fn http<I, S>(io: I, limits: &Limits, keep_alive: bool, service: S)
where
    I: AsyncRead + AsyncWrite + Unpin + Send + 'static,
    S: hyper::service::Service<Request<Incoming>, Response = Response<Body>, Error = Infallible>,
    S::Future: Send + 'static,
{
    let mut gate = head::Gate::new(io);
    // A connection's end (closed, timed out, broken) is no error of the server.
    // Half-closes are allowed so that the end the gate shows hyper after a
    // refused head lets hyper finish answering the request before it.
    let _ = hyper::server::conn::http1::Builder::new()
        .timer(TokioTimer::new())
        .header_read_timeout(limits.header_timeout)
        .keep_alive(keep_alive)
        .half_close(true)
        .max_buf_size(MAX_BUFFER)
        .serve_connection(TokioIo::new(&mut gate), service)
        .await;
    let _ = tokio::time::timeout(limits.header_timeout, gate.refuse()).await;
}

/// `response` with `Connection: close`.
fn closing(mut response: Response<Body>) -> Response<Body> {
    (response.headers_mut()).insert(header::CONNECTION, HeaderValue::from_static("close"));
    response
}

/// The 503 page of a connection over the cap.
fn busy() -> Response<Body> {
    closing(page(
        StatusCode::SERVICE_UNAVAILABLE,
        pages::refused(
            "Too many connections",
            "This inbox has too many connections open; close some of its tabs, or try again in a moment.",
        ),
    ))
}

/// The 408 page of a request not answered within `deadline`.
fn too_slow(deadline: Duration) -> Response<Body> {
    closing(page(
        StatusCode::REQUEST_TIMEOUT,
        pages::refused(
            "Too slow",
            &format!(
                "The request was not read and answered within {} s; try again.",
                deadline.as_secs()
            ),
        ),
    ))
}

mod head;

// The server on real sockets, with small limits: held connections, a trickle,
// a body too slow, the cap's 503, TLS.
#[cfg(test)]
mod tests;
