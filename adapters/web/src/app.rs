//! The HTTP side: routes, the guard on every request, and the handlers that
//! hand the person's actions to the [`Queue`] on tokio's blocking threads.

use std::net::SocketAddr;
use std::path::PathBuf;
use std::sync::{Arc, Mutex};

use askuser_app::log::StreamName;
use askuser_core::At;
use askuser_core::limits::MAX_ANSWER_BYTES;
use axum::Router;
use axum::extract::{DefaultBodyLimit, Form, Path, Query, Request, State};
use axum::handler::Handler as _;
use axum::http::{HeaderMap, HeaderValue, Method, StatusCode, Uri, header};
use axum::middleware::Next;
use axum::response::{IntoResponse, Response};
use axum::routing::get;

use crate::answer::Fields;
use crate::queue::{Act, NotTaken, Page, Queue};
use crate::{SharedLog, WebError};
use crate::{form, guard, live, notify, pages, serve, stream_routes, tls};

/// The most bytes of text a page's own text inputs take: `maxlength="4096"`
/// characters, each at most 4 bytes of UTF-8.
const FORM_TEXT_BYTES: usize = 4 * 4096;

/// The largest body a question's form posts: the answer (at most
/// [`MAX_ANSWER_BYTES`], which the engine checks), the "Other" text, the note and
/// the reply's message, each byte percent-encoded in at most 3, and 4 KiB for
/// the hidden fields, the action and a multi-select's ticks (at most
/// `MAX_OPTIONS` of `&pick=63`).
const MAX_ANSWER_FORM: usize = 3 * (MAX_ANSWER_BYTES + 3 * FORM_TEXT_BYTES) + 4 * 1024;

/// The largest body "Answer again from here" posts: the form token and an
/// event's number.
const MAX_FORK_FORM: usize = 1024;

/// The Content-Security-Policy of every page: nothing but this server's
/// stylesheet and script (no inline script, no `eval`), connections only here,
/// no frame, forms posted only here.
const CSP: &str = "default-src 'none'; style-src 'self'; script-src 'self'; \
                   connect-src 'self'; form-action 'self'; frame-ancestors 'none'; \
                   base-uri 'none'";

#[derive(Clone)]
pub(crate) struct App {
    pub(crate) queue: Arc<Mutex<Queue>>,
    token: Arc<str>,
    pub(crate) csrf: Arc<str>,
    hosts: Arc<Vec<String>>,
    /// Served over TLS: the cookie is `Secure`, and an `Origin` is `https://`.
    secure: bool,
    /// Counts the log's changes (see [`live`]); `None` until the server runs.
    changes: Option<tokio::sync::watch::Receiver<u64>>,
    /// What this inbox knows of the turns it ended, for its Done pages' words
    /// (the log records that a turn was ended, not where).
    pub(crate) ended: Arc<Mutex<Ended>>,
}

/// The turns this inbox ended since it started (the latest [`Ended::KEPT`],
/// by stream and inquiry), and when it started.
#[derive(Debug, Default)]
pub(crate) struct Ended {
    turns: std::collections::VecDeque<(String, String)>,
    /// When the inbox started, in milliseconds since the Unix epoch.
    pub(crate) started_ms: u64,
}

impl Ended {
    /// How many ended turns are remembered.
    const KEPT: usize = 1024;

    /// Remembers that this inbox ended `inquiry`'s turn in `stream`.
    fn remember(&mut self, stream: &str, inquiry: &str) {
        if self.turns.len() == Self::KEPT {
            self.turns.pop_front();
        }
        self.turns
            .push_back((stream.to_owned(), inquiry.to_owned()));
    }

    /// What the inbox knows of who ended `inquiry`'s turn, for a page shown
    /// in the tab whose End Turn led to it (`this_tab`) or another.
    fn here(&self, stream: &str, inquiry: &str, this_tab: bool) -> crate::queue::EndedHere {
        let by_this_inbox = (self.turns.iter()).any(|(s, i)| s == stream && i == inquiry);
        crate::queue::EndedHere {
            by_this_inbox,
            this_tab: this_tab && by_this_inbox,
            started_ms: self.started_ms,
        }
    }
}

/// The query an End Turn's own redirect carries, so that the Done page it
/// leads to knows it is the tab that ended the turn.
const ENDED_HERE: &str = "ended=here";

/// Where and how the inbox listens.
#[derive(Debug, Clone)]
pub struct Listen {
    /// The address to bind.
    pub addr: SocketAddr,
    /// The PEM certificate chain and the PEM private key to serve HTTPS with.
    pub tls: Option<(PathBuf, PathBuf)>,
    /// Serve plain HTTP on an address other machines can reach (anyone on the
    /// network path can read the questions and the token).
    pub insecure_http: bool,
    /// More names the server answers to (`inbox.example` or
    /// `inbox.example:8443`): the `Host` header must be one of them or the bound
    /// address. The first is the one in the printed URL.
    pub names: Vec<String>,
    /// Where to post a small JSON each time a question starts waiting
    /// (`http://` or `https://`).
    pub notify: Option<String>,
    /// Where the secret token is kept (made, readable by its owner only, when
    /// missing), so the link and a browser's cookie outlive a restart; `None`:
    /// a new token at each start.
    pub token_file: Option<PathBuf>,
}

impl Listen {
    /// Plain HTTP on a loopback `addr`.
    pub fn loopback(addr: SocketAddr) -> Self {
        Self {
            addr,
            tls: None,
            insecure_http: false,
            names: Vec::new(),
            notify: None,
            token_file: None,
        }
    }
}

/// The web inbox, bound and ready to serve.
pub struct Inbox {
    listener: std::net::TcpListener,
    tls: Option<Arc<rustls::ServerConfig>>,
    notify: Option<notify::Target>,
    app: App,
    url: String,
    /// `scheme://host`, for the links of notifications and the link a
    /// waiting call shows ([`askuser_app::web_inbox`]).
    origin: String,
    /// Said on the log from the bind on (the listener queues connections
    /// until the inbox serves), so a waiting call gives the person the
    /// inbox's link; `None` for a log that keeps no presence.
    presence: Option<askuser_app::web_inbox::InboxPresence>,
    /// The bounds on every connection.
    pub(crate) limits: serve::Limits,
}

impl Inbox {
    /// Binds as `listen` says. Without TLS the address must be loopback unless
    /// `insecure_http` is set.
    ///
    /// # Errors
    /// [`WebError::Listen`] when the address is not loopback without TLS or
    /// `insecure_http`, a name is not a host name, or the address cannot be
    /// bound; [`WebError::Tls`] when the certificate or key cannot be used;
    /// [`WebError::Token`] when no secret can be made; [`WebError::TokenFile`]
    /// when the token file cannot be used.
    pub fn bind(log: SharedLog, listen: &Listen) -> Result<Self, WebError> {
        let addr = listen.addr;
        let refuse = |reason: String| WebError::Listen { addr, reason };
        if listen.tls.is_none() && !listen.insecure_http && !addr.ip().is_loopback() {
            return Err(refuse("only a loopback address is served without TLS; give --tls-cert and --tls-key (recommended), or pass --insecure-http to serve plain HTTP to other machines (anyone on the network path can read the questions and the token)".into()));
        }
        for name in &listen.names {
            guard::check_name(name)
                .map_err(|reason| refuse(format!("--allow-host {name:?}: {reason}")))?;
        }
        let notify = listen
            .notify
            .as_deref()
            .map(notify::Target::parse)
            .transpose()?;
        let tls = match &listen.tls {
            Some((cert, key)) => Some(tls::config(cert, key)?),
            None => None,
        };
        let listener = std::net::TcpListener::bind(addr).map_err(|error| {
            refuse(match error.kind() {
                std::io::ErrorKind::AddrInUse => format!(
                    "another program (perhaps another `askuser web`) already listens on port {}; pass --listen with another port (--listen 127.0.0.1:0 takes any free one)",
                    addr.port()
                ),
                _ => error.to_string(),
            })
        })?;
        let bound = listener.local_addr()?;
        let token: Arc<str> = match &listen.token_file {
            Some(path) => askuser_app::secret::kept_in(path)
                .map_err(|error| WebError::TokenFile(error.to_string()))?,
            None => askuser_app::secret::random().map_err(WebError::Token)?,
        }
        .into();
        let csrf: Arc<str> = askuser_app::secret::random()
            .map_err(WebError::Token)?
            .into();
        let mut hosts = guard::allowed_hosts(bound.ip(), bound.port());
        let named: Vec<String> = (listen.names.iter())
            .map(|name| guard::with_port(name, bound.port()))
            .collect();
        let shown = named.first().unwrap_or(&hosts[0]).clone();
        hosts.extend(named);
        let scheme = if tls.is_some() { "https" } else { "http" };
        let origin = format!("{scheme}://{shown}");
        let url = format!("{origin}/?token={token}");
        let presence =
            askuser_app::web_inbox::InboxPresence::hold(Arc::clone(&log), &format!("{origin}/"))
                .ok();
        let desk = askuser_app::Desk::new(log);
        Ok(Self {
            listener,
            tls,
            notify,
            origin,
            presence,
            app: App {
                queue: Arc::new(Mutex::new(Queue::new(desk))),
                token,
                csrf,
                hosts: Arc::new(hosts),
                secure: listen.tls.is_some(),
                changes: None,
                ended: Arc::new(Mutex::new(Ended {
                    started_ms: now_ms(),
                    ..Ended::default()
                })),
            },
            url,
            limits: serve::Limits::default(),
        })
    }

    /// The URL to open, with the secret token.
    pub fn url(&self) -> &str {
        &self.url
    }

    /// The inbox's link without its token (`http://127.0.0.1:8765/`): what a
    /// waiting call shows, and what a browser that opened [`Inbox::url`] once
    /// can use.
    pub fn link(&self) -> String {
        format!("{}/", self.origin)
    }

    /// Serves until the process ends, every connection bounded in time and
    /// number (a connection's own failure never stops the server).
    ///
    /// # Errors
    /// [`WebError::Io`] when the runtime or the listener cannot be set up.
    pub fn run(self) -> Result<(), WebError> {
        let runtime = tokio::runtime::Builder::new_multi_thread()
            .worker_threads(2)
            .enable_all()
            .build()?;
        let _presence = self.presence;
        // What waits now, read before the runtime runs: a blocking log client
        // (PostgreSQL's) must not run on it.
        let waiting_now = (self.notify.as_ref())
            .map(|_| lock(&self.app.queue).waiting(now_ms()).unwrap_or_default());
        runtime.block_on(async move {
            let mut app = self.app;
            let watcher = lock(&app.queue).watcher();
            let on_change = self.notify.map(|target| {
                let queue = Arc::clone(&app.queue);
                let waiting = waiting_now.unwrap_or_default();
                let mut notifier = notify::Notifier::new(target, self.origin, &waiting);
                move || {
                    if let Ok(waiting) = lock(&queue).waiting(now_ms()) {
                        notifier.tell(&waiting);
                    }
                }
            });
            app.changes = Some(match on_change {
                Some(on_change) => live::watch_log(watcher, on_change),
                None => live::watch_log(watcher, || {}),
            });
            self.listener.set_nonblocking(true)?;
            let listener = tokio::net::TcpListener::from_std(self.listener)?;
            let routes = router(app.clone());
            serve::serve(listener, self.tls, routes, app, self.limits).await;
            Ok::<_, WebError>(())
        })
    }
}

fn router(app: App) -> Router {
    Router::new()
        .route("/", get(inbox))
        .route("/style.css", get(style))
        .route("/app.js", get(script))
        .route("/events", get(events))
        .route(
            "/q/{stream}/{inquiry}",
            get(question).post(act.layer(DefaultBodyLimit::max(MAX_ANSWER_FORM))),
        )
        .route("/q/{stream}/{inquiry}/reply", get(reply))
        .route("/q/{stream}/{inquiry}/end", get(end_turn))
        .route("/s/{stream}", get(stream_routes::history))
        .route("/s/{stream}/transcript", get(stream_routes::transcript))
        .route("/s/{stream}/export", get(stream_routes::export))
        .route(
            "/s/{stream}/fork",
            get(stream_routes::fork_ask).post(stream_routes::fork),
        )
        .fallback(no_such_page)
        .layer(DefaultBodyLimit::max(MAX_FORK_FORM))
        .layer(axum::middleware::from_fn_with_state(
            app.clone(),
            guard_before_body,
        ))
        .layer(axum::middleware::map_response(secured))
        .with_state(app)
}

/// Every request that may carry a body (any method but GET and HEAD) passes
/// the guard on its head, before any byte of its body is read: without the
/// cookie, from another site or for another host it gets the refusal a bodiless
/// one gets, whatever its body's type or size. (The form token, in the body, is
/// checked first thing once the body, capped per route, is read.)
async fn guard_before_body(State(app): State<App>, request: Request, next: Next) -> Response {
    let reads_body = !matches!(*request.method(), Method::GET | Method::HEAD);
    if reads_body && let Some(refused) = check(&app, request.headers(), true) {
        return refused;
    }
    next.run(request).await
}

/// Whether a request shows this server's secret on its head: a `Host` it
/// answers to, and the token cookie or the printed link's `?token=`.
pub(crate) fn admitted(app: &App, headers: &HeaderMap, uri: &Uri) -> bool {
    let text = |name| headers.get(name).and_then(|v| v.to_str().ok());
    let token = guard::cookie_token(text(header::COOKIE)).or_else(|| {
        (uri.query().unwrap_or_default().split('&')).find_map(|pair| pair.strip_prefix("token="))
    });
    guard::host_allowed(text(header::HOST), &app.hosts)
        && token.is_some_and(|token| askuser_app::secret::same(token, &app.token))
}

/// A path this server does not serve: a page that says so.
async fn no_such_page() -> Response {
    page(
        StatusCode::NOT_FOUND,
        pages::refused("No such page", "This inbox has no page at this address."),
    )
}

/// Every answer, including those the router or an extractor makes itself (a
/// wrong method, a body too large or of the wrong type), carries the security
/// headers; a page's own are kept.
async fn secured(mut response: Response) -> Response {
    let headers = response.headers_mut();
    for (name, value) in [
        (header::CONTENT_SECURITY_POLICY, CSP),
        (header::X_CONTENT_TYPE_OPTIONS, "nosniff"),
        (header::REFERRER_POLICY, "same-origin"),
        (header::X_FRAME_OPTIONS, "DENY"),
        (header::CACHE_CONTROL, "no-store"),
    ] {
        headers
            .entry(name)
            .or_insert_with(|| HeaderValue::from_static(value));
    }
    response
}

/// A page with the security headers every response carries.
pub(crate) fn page(status: StatusCode, html: String) -> Response {
    let mut response = (status, html).into_response();
    let headers = response.headers_mut();
    headers.insert(
        header::CONTENT_TYPE,
        HeaderValue::from_static("text/html; charset=utf-8"),
    );
    headers.insert(
        header::CONTENT_SECURITY_POLICY,
        HeaderValue::from_static(CSP),
    );
    headers.insert(
        header::X_CONTENT_TYPE_OPTIONS,
        HeaderValue::from_static("nosniff"),
    );
    headers.insert(
        header::REFERRER_POLICY,
        HeaderValue::from_static("same-origin"),
    );
    headers.insert(header::X_FRAME_OPTIONS, HeaderValue::from_static("DENY"));
    headers.insert(header::CACHE_CONTROL, HeaderValue::from_static("no-store"));
    response
}

pub(crate) fn see_other(location: &str) -> Response {
    let mut response = page(StatusCode::SEE_OTHER, String::new());
    if let Ok(value) = HeaderValue::from_str(location) {
        response.headers_mut().insert(header::LOCATION, value);
    }
    response
}

/// The guard every request passes ([`guard`]): its `Host`, its cookie, and for
/// a POST its `Origin`; the refusal to send, if any.
pub(crate) fn check(app: &App, headers: &HeaderMap, post: bool) -> Option<Response> {
    let text = |name| {
        headers
            .get(name)
            .and_then(|v: &HeaderValue| v.to_str().ok())
    };
    let host = text(header::HOST);
    if !guard::host_allowed(host, &app.hosts) {
        return Some(page(
            StatusCode::MISDIRECTED_REQUEST,
            pages::refused(
                "Wrong address",
                "This server answers only at the address askuser web printed.",
            ),
        ));
    }
    let scheme = if app.secure { "https" } else { "http" };
    if post && !guard::origin_allowed(text(header::ORIGIN), scheme, host.unwrap_or_default()) {
        return Some(page(
            StatusCode::FORBIDDEN,
            pages::refused("Refused", "A form from another site cannot answer here."),
        ));
    }
    match guard::cookie_token(text(header::COOKIE)) {
        Some(token) if askuser_app::secret::same(token, &app.token) => None,
        _ => Some(page(
            StatusCode::UNAUTHORIZED,
            pages::refused(
                "Open the link askuser web printed",
                "This inbox needs its secret link (it ends with ?token=…); open it once in this browser.",
            ),
        )),
    }
}

pub(crate) async fn blocking<T: Send + 'static>(work: impl FnOnce() -> T + Send + 'static) -> T {
    tokio::task::spawn_blocking(work)
        .await
        .expect("a page's work never panics")
}

async fn style(State(app): State<App>, headers: HeaderMap) -> Response {
    if let Some(refused) = check(&app, &headers, false) {
        return refused;
    }
    let mut response = page(StatusCode::OK, pages::STYLE.to_owned());
    response.headers_mut().insert(
        header::CONTENT_TYPE,
        HeaderValue::from_static("text/css; charset=utf-8"),
    );
    response
}

async fn script(State(app): State<App>, headers: HeaderMap) -> Response {
    if let Some(refused) = check(&app, &headers, false) {
        return refused;
    }
    let mut response = page(StatusCode::OK, pages::SCRIPT.to_owned());
    response.headers_mut().insert(
        header::CONTENT_TYPE,
        HeaderValue::from_static("text/javascript; charset=utf-8"),
    );
    response
}

async fn events(State(app): State<App>, headers: HeaderMap) -> Response {
    if let Some(refused) = check(&app, &headers, false) {
        return refused;
    }
    match app.changes {
        Some(changes) => live::events(changes).into_response(),
        None => StatusCode::SERVICE_UNAVAILABLE.into_response(),
    }
}

/// The wall clock, in milliseconds since the Unix epoch.
pub(crate) fn now_ms() -> u64 {
    std::time::SystemTime::now()
        .duration_since(std::time::UNIX_EPOCH)
        .map_or(0, |d| u64::try_from(d.as_millis()).unwrap_or(u64::MAX))
}

async fn inbox(
    State(app): State<App>,
    headers: HeaderMap,
    Query(query): Query<Vec<(String, String)>>,
) -> Response {
    let given = query
        .iter()
        .find(|(k, _)| k == "token")
        .map(|(_, v)| v.clone());
    if let Some(given) = given {
        let host = headers.get(header::HOST).and_then(|v| v.to_str().ok());
        if !guard::host_allowed(host, &app.hosts) || !askuser_app::secret::same(&given, &app.token)
        {
            return page(
                StatusCode::UNAUTHORIZED,
                pages::refused("Wrong link", "This link's token is not this server's."),
            );
        }
        let mut response = see_other("/");
        if let Ok(cookie) = HeaderValue::from_str(&guard::set_cookie(&app.token, app.secure)) {
            response.headers_mut().insert(header::SET_COOKIE, cookie);
        }
        return response;
    }
    if let Some(refused) = check(&app, &headers, false) {
        return refused;
    }
    // `?page=N`: the inbox's page N (the first when absent or not a number).
    let n = (query.iter())
        .find(|(k, _)| k == "page")
        .and_then(|(_, v)| v.parse::<usize>().ok())
        .unwrap_or(1);
    let queue = Arc::clone(&app.queue);
    let now = now_ms();
    let day = crate::today::LocalDay::at(now);
    let read = blocking(move || {
        let mut queue = lock(&queue);
        let waiting = queue.waiting(now)?;
        let days = queue.ended_since(day.start())?;
        let unheard = queue.unheard_of(&days)?;
        Ok::<_, askuser_app::AppError>((waiting, days, unheard))
    });
    match read.await {
        Ok((waiting, days, unheard)) => {
            let today = crate::today::answered_today(&days, day, &unheard);
            let count = days.iter().map(|d| d.ended.len()).sum();
            page(
                StatusCode::OK,
                pages::inbox(&waiting, now, n, (count, &today)),
            )
        }
        Err(error) => trouble(&error.to_string()),
    }
}

/// The turns this inbox ended ([`Ended`]), locked.
fn lock_ended(ended: &Mutex<Ended>) -> std::sync::MutexGuard<'_, Ended> {
    ended
        .lock()
        .unwrap_or_else(std::sync::PoisonError::into_inner)
}

/// Who asks `inquiry` of `stream` ([`Queue::asker`]); the assistant, unnamed,
/// when the log cannot be read.
async fn asker_of(app: &App, stream: &str, inquiry: &str) -> pages::Asker {
    let queue = Arc::clone(&app.queue);
    let (s, i) = (stream.to_owned(), inquiry.to_owned());
    blocking(move || lock(&queue).asker(&s, &i))
        .await
        .unwrap_or_else(|_| unnamed())
}

pub(crate) fn lock(queue: &Mutex<Queue>) -> std::sync::MutexGuard<'_, Queue> {
    queue
        .lock()
        .unwrap_or_else(std::sync::PoisonError::into_inner)
}

pub(crate) fn trouble(text: &str) -> Response {
    page(
        StatusCode::INTERNAL_SERVER_ERROR,
        pages::refused("The log cannot be read", text),
    )
}

/// Renders `stream`/`inquiry`'s page, with `error` shown on it.
/// An inquiry's page as it stands; after a refusal, with the reason and what the
/// person sent (`typed`) put back into the inputs, so nothing typed is lost.
async fn render(
    app: &App,
    stream: StreamName,
    inquiry: String,
    error: Option<String>,
    typed: Option<Fields>,
    shown: Option<At>,
) -> Response {
    render_as(
        app,
        stream,
        inquiry,
        Said {
            error,
            typed,
            shown,
            this_tab: false,
        },
    )
    .await
}

/// What a rendered inquiry page is to say besides what stands: a refusal's
/// reason (`error`) with what the person sent (`typed`), what the page the
/// person had open showed (`shown`), and whether it is the tab whose End
/// Turn led here (`this_tab`).
struct Said {
    error: Option<String>,
    typed: Option<Fields>,
    shown: Option<At>,
    this_tab: bool,
}

/// What an inquiry's page is made of, read from the queue: the page, who
/// asks, what moved it on since the page the person had open (`moved`), and
/// after Done, the next question waiting (`next`: its path and text).
struct Made {
    page: Page,
    asker: pages::Asker,
    moved: Option<String>,
    next: Option<(String, String)>,
}

/// [`Made`], for `inquiry` of `stream` at `now` (`here`: what this inbox
/// knows of who ended a turn; `shown`: what the person's page showed).
fn made(
    queue: &mut Queue,
    stream: &str,
    inquiry: &str,
    now: u64,
    here: crate::queue::EndedHere,
    shown: Option<&At>,
) -> Result<Made, askuser_app::AppError> {
    let page = queue.page_as(stream, inquiry, now, here)?;
    let asker = queue.asker(stream, inquiry)?;
    let moved = match shown {
        Some(shown) => queue.moved_words(stream, shown)?,
        None => None,
    };
    // After Done, the way on: the first question still waiting.
    let next = match &page {
        Page::Finished(_) => queue.waiting(now)?.into_iter().find_map(|waiting| {
            let question = waiting.question?;
            Some((
                pages::inquiry_path(&waiting.stream, &waiting.inquiry),
                question,
            ))
        }),
        _ => None,
    };
    Ok(Made {
        page,
        asker,
        moved,
        next,
    })
}

/// Who asks when the log cannot say: the assistant, unnamed.
fn unnamed() -> pages::Asker {
    pages::Asker {
        label: "Assistant".to_owned(),
        origin: None,
    }
}

/// [`render`], with what the page is to say ([`Said`]).
async fn render_as(app: &App, stream: StreamName, inquiry: String, said: Said) -> Response {
    let Said {
        error,
        typed,
        shown,
        this_tab,
    } = said;
    let path = pages::inquiry_path(&stream, &inquiry);
    let stream_name = stream.clone();
    let queue = Arc::clone(&app.queue);
    let csrf = Arc::clone(&app.csrf);
    let status = if error.is_some() {
        StatusCode::CONFLICT
    } else {
        StatusCode::OK
    };
    let now = now_ms();
    let here = lock_ended(&app.ended).here(&stream, &inquiry, this_tab);
    let made = blocking(move || {
        made(
            &mut lock(&queue),
            &stream,
            &inquiry,
            now,
            here,
            shown.as_ref(),
        )
    })
    .await;
    let (made, asker, moved, next) = match made {
        Ok(Made {
            page,
            asker,
            moved,
            next,
        }) => (Ok(page), asker, moved, next),
        Err(error) => (Err(error), unnamed(), None, None),
    };
    let page = |status, html: String| page(status, pages::with_moved(html, moved.as_deref()));
    match made {
        Ok(Page::Prompt(prompt, standing)) => page(
            status,
            form::question(
                &prompt,
                form::Heading {
                    asker: &asker,
                    standing: &standing,
                    now,
                },
                &path,
                &csrf,
                form::Refusal {
                    error: error.as_deref(),
                    typed: typed.as_ref(),
                },
            ),
        ),
        Ok(Page::Review(outcome, at, standing)) => page(
            status,
            form::review(
                &outcome,
                &at,
                form::Heading {
                    asker: &asker,
                    standing: &standing,
                    now,
                },
                &path,
                &csrf,
                form::Refusal {
                    error: error.as_deref(),
                    typed: typed.as_ref(),
                },
            ),
        ),
        Ok(Page::Finished(mut done)) => {
            if let Some(error) = error {
                done.text = format!("{error}. {}", done.text);
            }
            let unsent = typed.map(|typed| form::typed_text(&typed).0);
            page(
                status,
                pages::finished(
                    &done,
                    &asker,
                    now,
                    &unsent.unwrap_or_default(),
                    next.as_ref(),
                ),
            )
        }
        Ok(Page::Missing) => missing(&stream_name),
        Err(error) => trouble(&error.to_string()),
    }
}

/// `GET /q/STREAM/INQUIRY`: the inquiry's page. With `?step=S` (and
/// `&question=ID` for a question), what a page open in the browser showed (the
/// script asks so when the log changed): the page then carries, hidden, what
/// moved the inquiry on since, in words, for the script to tell.
async fn question(
    State(app): State<App>,
    headers: HeaderMap,
    Path((stream, inquiry)): Path<(String, String)>,
    Query(query): Query<Vec<(String, String)>>,
) -> Response {
    if let Some(refused) = check(&app, &headers, false) {
        return refused;
    }
    let Ok(stream) = StreamName::try_from(stream.as_str()) else {
        return missing(&stream);
    };
    let field = |name: &str| {
        (query.iter())
            .find(|(k, _)| k == name)
            .map(|(_, v)| v.clone())
    };
    let shown = field("step")
        .and_then(|step| step.parse::<u32>().ok())
        .map(|step| At {
            inquiry: askuser_core::InquiryId::new(&inquiry),
            question: field("question"),
            step,
        });
    let this_tab = field("ended").as_deref() == Some("here");
    let said = Said {
        error: None,
        typed: None,
        shown,
        this_tab,
    };
    render_as(&app, stream, inquiry, said).await
}

async fn reply(
    State(app): State<App>,
    headers: HeaderMap,
    Path((stream, inquiry)): Path<(String, String)>,
) -> Response {
    if let Some(refused) = check(&app, &headers, false) {
        return refused;
    }
    let Ok(stream) = StreamName::try_from(stream.as_str()) else {
        return missing(&stream);
    };
    let queue = Arc::clone(&app.queue);
    let (s, i) = (stream.clone(), inquiry.clone());
    let found = blocking(move || {
        let mut queue = lock(&queue);
        Ok::<_, askuser_app::AppError>((queue.current_at(&s, &i)?, queue.asker(&s, &i)?))
    })
    .await;
    match found {
        Ok((Some(at), asker)) => page(
            StatusCode::OK,
            form::reply(
                &asker,
                &pages::inquiry_path(&stream, &inquiry),
                &app.csrf,
                &at,
                form::Refusal::default(),
            ),
        ),
        // Not waiting (finished, or never asked): the question's page says why.
        Ok((None, _)) => render(&app, stream, inquiry, None, None, None).await,
        Err(error) => trouble(&error.to_string()),
    }
}

async fn end_turn(
    State(app): State<App>,
    headers: HeaderMap,
    Path((stream, inquiry)): Path<(String, String)>,
) -> Response {
    if let Some(refused) = check(&app, &headers, false) {
        return refused;
    }
    let queue = Arc::clone(&app.queue);
    let (s, i) = (stream.clone(), inquiry.clone());
    match blocking(move || lock(&queue).asker(&s, &i)).await {
        Ok(asker) => page(
            StatusCode::OK,
            form::end_turn(&asker, &pages::inquiry_path(&stream, &inquiry), &app.csrf),
        ),
        Err(error) => trouble(&error.to_string()),
    }
}

/// The page of a question the log does not have (404): what a path whose
/// stream name breaks the rule gets too, as it names no stream of the log.
fn missing(stream: &str) -> Response {
    page(StatusCode::NOT_FOUND, pages::missing(stream))
}

/// The refusal of a form without this server's form token, if any.
pub(crate) fn form_token_ok(app: &App, fields: &Fields) -> Option<Response> {
    if fields
        .get("csrf")
        .is_some_and(|csrf| askuser_app::secret::same(csrf, &app.csrf))
    {
        return None;
    }
    Some(page(
        StatusCode::FORBIDDEN,
        pages::refused(
            "Refused",
            "The form is out of date or not this server's; reload the page.",
        ),
    ))
}

async fn act(
    State(app): State<App>,
    headers: HeaderMap,
    Path((stream, inquiry)): Path<(String, String)>,
    Form(fields): Form<Vec<(String, String)>>,
) -> Response {
    if let Some(refused) = check(&app, &headers, true) {
        return refused;
    }
    let fields = Fields(fields);
    if let Some(refused) = form_token_ok(&app, &fields) {
        return refused;
    }
    let Ok(stream) = StreamName::try_from(stream.as_str()) else {
        return missing(&stream);
    };
    let typed = fields.clone();
    let queue = Arc::clone(&app.queue);
    let ended = Arc::clone(&app.ended);
    let (s, i) = (stream.clone(), inquiry.clone());
    let ended_turn = fields.get("action") == Some("end_turn") && fields.get("change").is_none();
    let outcome = blocking(move || {
        // A review's Change button names its question in its own field.
        let action = match fields.get("change") {
            Some(_) => Some("change"),
            None => fields.get("action"),
        };
        let act = match action {
            Some("change") => Act::Change,
            Some("answer") => Act::Answer,
            Some("back") => Act::Back,
            Some("reply") => Act::Reply,
            Some("end_turn") => Act::EndTurn,
            Some("submit") => Act::Submit,
            _ => {
                let not_taken = NotTaken {
                    message: "the form named no action; reload the page".into(),
                    stale: false,
                    sent: false,
                    note_asked: false,
                };
                return Ok(Err((not_taken, None)));
            }
        };
        let at = form::read_at(&i, &fields);
        let mut queue = lock(&queue);
        let outcome = queue.act(&s, &i, at, act, &fields, now_ms())?;
        if act == Act::EndTurn && outcome.is_ok() {
            lock_ended(&ended).remember(&s, &i);
        }
        // A Reply that was not taken stays on the Reply page, its message kept.
        let reply_at = match (&outcome, act) {
            (Err(not_taken), Act::Reply) if not_taken.stale => queue.current_at(&s, &i)?,
            _ => None,
        };
        Ok::<_, askuser_app::AppError>(outcome.map_err(|not_taken| (not_taken, reply_at)))
    })
    .await;
    match outcome {
        Ok(Ok(())) if ended_turn => see_other(&format!(
            "{}?{ENDED_HERE}",
            pages::inquiry_path(&stream, &inquiry)
        )),
        Ok(Ok(())) => see_other(&pages::inquiry_path(&stream, &inquiry)),
        Ok(Err((not_taken, Some(reply_at)))) => {
            let refusal = form::Refusal {
                error: Some(&not_taken.message),
                typed: Some(&typed),
            };
            let path = pages::inquiry_path(&stream, &inquiry);
            page(
                StatusCode::CONFLICT,
                form::reply(
                    &asker_of(&app, &stream, &inquiry).await,
                    &path,
                    &app.csrf,
                    &reply_at,
                    refusal,
                ),
            )
        }
        Ok(Err((not_taken, None))) => {
            let mut typed = typed;
            if not_taken.note_asked {
                typed.0.push(("note_checked".to_owned(), "1".to_owned()));
            }
            let typed = if not_taken.sent {
                None
            } else if not_taken.stale {
                Some(form::typed_text(&typed)).filter(|typed| !typed.0.is_empty())
            } else {
                Some(typed)
            };
            render(&app, stream, inquiry, Some(not_taken.message), typed, None).await
        }
        Err(error) => trouble(&error.to_string()),
    }
}

// The handlers tested in process: the router over a memory log, called with
// `oneshot` (a child module, so it builds an `App` with a fixed token).
#[cfg(test)]
mod tests;
