//! The routes of a stream as a whole: its history, its transcript, its export
//! (JSON lines) and "Answer again from here" (a page that asks first, then a
//! fork).

use std::sync::Arc;

use axum::extract::{Form, Path, Query, State};
use axum::http::{HeaderMap, HeaderValue, StatusCode, header};
use axum::response::Response;

use askuser_app::log::StreamName;

use crate::answer::Fields;
use crate::app::{App, blocking, check, form_token_ok, lock, now_ms, page, see_other, trouble};
use crate::{history, pages};

/// The page of a stream the log does not have (404): what a path whose stream
/// name breaks the rule gets too, as it names no stream of the log.
fn missing() -> Response {
    page(
        StatusCode::NOT_FOUND,
        pages::refused("No such stream", "The log has no stream of that name."),
    )
}

/// `GET /s/STREAM`: the stream's history.
pub(crate) async fn history(
    State(app): State<App>,
    headers: HeaderMap,
    Path(stream): Path<String>,
) -> Response {
    if let Some(refused) = check(&app, &headers, false) {
        return refused;
    }
    let Ok(stream) = StreamName::try_from(stream) else {
        return missing();
    };
    let queue = Arc::clone(&app.queue);
    match blocking(move || lock(&queue).history_told(&stream)).await {
        Ok(Some((found, entries, unheard))) => page(
            StatusCode::OK,
            history::page(&found, &entries, &unheard, now_ms()),
        ),
        Ok(None) => missing(),
        Err(error) => trouble(&error.to_string()),
    }
}

/// A plain-text or JSON-lines body, shown or downloaded.
fn text(body: String, kind: &'static str, download: Option<String>) -> Response {
    let mut response = page(StatusCode::OK, body);
    let headers = response.headers_mut();
    headers.insert(header::CONTENT_TYPE, HeaderValue::from_static(kind));
    if let Some(value) = download.and_then(|v| HeaderValue::from_str(&v).ok()) {
        headers.insert(header::CONTENT_DISPOSITION, value);
    }
    response
}

/// `GET /s/STREAM/transcript`: what was asked and answered, in sentences.
pub(crate) async fn transcript(
    State(app): State<App>,
    headers: HeaderMap,
    Path(stream): Path<String>,
) -> Response {
    if let Some(refused) = check(&app, &headers, false) {
        return refused;
    }
    let Ok(stream) = StreamName::try_from(stream) else {
        return missing();
    };
    let queue = Arc::clone(&app.queue);
    let made = blocking(move || lock(&queue).transcript(&stream)).await;
    match made {
        Ok(Some(body)) => text(body, "text/plain; charset=utf-8", None),
        Ok(None) => missing(),
        Err(error) => trouble(&error.to_string()),
    }
}

/// `GET /s/STREAM/export`: every event kept, as JSON lines (a download).
pub(crate) async fn export(
    State(app): State<App>,
    headers: HeaderMap,
    Path(stream): Path<String>,
) -> Response {
    if let Some(refused) = check(&app, &headers, false) {
        return refused;
    }
    let Ok(stream) = StreamName::try_from(stream) else {
        return missing();
    };
    let queue = Arc::clone(&app.queue);
    let file = format!("attachment; filename=\"{}.jsonl\"", pages::segment(&stream));
    let made = blocking(move || {
        (lock(&queue).export(&stream))
            .map(|out| out.map(|out| String::from_utf8_lossy(&out).into_owned()))
    })
    .await;
    match made {
        Ok(Some(body)) => text(body, "application/x-ndjson; charset=utf-8", Some(file)),
        Ok(None) => missing(),
        Err(error) => trouble(&error.to_string()),
    }
}

/// `GET /s/STREAM/fork?at=N`: the page that says what answering again from
/// after event `N` does, and asks before forking.
pub(crate) async fn fork_ask(
    State(app): State<App>,
    headers: HeaderMap,
    Path(stream): Path<String>,
    Query(query): Query<Vec<(String, String)>>,
) -> Response {
    if let Some(refused) = check(&app, &headers, false) {
        return refused;
    }
    let Ok(stream) = StreamName::try_from(stream) else {
        return missing();
    };
    let Some(at) = (query.iter())
        .find(|(k, _)| k == "at")
        .and_then(|(_, v)| v.parse::<u64>().ok())
    else {
        return no_event();
    };
    let queue = Arc::clone(&app.queue);
    let name = stream.clone();
    let preview = blocking(move || lock(&queue).fork_preview(&name, at)).await;
    match preview {
        Ok(Some(Ok((branch, question)))) => page(
            StatusCode::OK,
            history::fork_page(&stream, at, question.as_deref(), &branch, &app.csrf),
        ),
        Ok(Some(Err(message))) => page(
            StatusCode::CONFLICT,
            pages::refused("Cannot answer again from there", &message),
        ),
        Ok(None) => missing(),
        Err(error) => trouble(&error.to_string()),
    }
}

/// The page of a fork that names no event (400).
fn no_event() -> Response {
    page(
        StatusCode::BAD_REQUEST,
        pages::refused(
            "Refused",
            "The form named no event to fork at; reload the page.",
        ),
    )
}

/// `POST /s/STREAM/fork` with `at`: a fork after event `at`, then its open
/// question (or its history).
pub(crate) async fn fork(
    State(app): State<App>,
    headers: HeaderMap,
    Path(stream): Path<String>,
    Form(fields): Form<Vec<(String, String)>>,
) -> Response {
    if let Some(refused) = check(&app, &headers, true) {
        return refused;
    }
    let fields = Fields(fields);
    if let Some(refused) = form_token_ok(&app, &fields) {
        return refused;
    }
    let Ok(stream) = StreamName::try_from(stream) else {
        return missing();
    };
    let Some(at) = fields.get("at").and_then(|at| at.parse::<u64>().ok()) else {
        return no_event();
    };
    let queue = Arc::clone(&app.queue);
    let forked = blocking(move || lock(&queue).fork(&stream, at)).await;
    match forked {
        Ok(Ok((name, Some(inquiry)))) => see_other(&pages::inquiry_path(&name, &inquiry)),
        Ok(Ok((name, None))) => see_other(&pages::stream_path(&name)),
        Ok(Err(message)) => page(
            StatusCode::CONFLICT,
            pages::refused("Cannot answer again from there", &message),
        ),
        Err(error) => trouble(&error.to_string()),
    }
}
