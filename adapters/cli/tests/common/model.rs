//! A scripted model on loopback, in the test process: enough of the Anthropic
//! Messages API (Claude Code), the `OpenAI` Responses API (Codex) and the Gemini API
//! (Gemini CLI) for a host to run a turn. The script: when a request offers
//! askuser's tool and carries no result of it, call the tool with the script's
//! arguments; when a request carries the tool's result, record it (exactly what
//! reached the model) and end the turn with a text. Any other request (a side
//! request of the host's own) gets a plain text reply.
//!
//! Plain HTTP/1.1 on `std::net`, one thread per connection, every response with
//! its length and `connection: close`, so no host waits on a stream.

use std::io::{BufRead, BufReader, Write};
use std::net::{TcpListener, TcpStream};
use std::sync::atomic::{AtomicBool, Ordering};
use std::sync::{Arc, Mutex, PoisonError};
use std::time::{Duration, Instant};

use serde_json::{Value, json};

/// The text the model ends its turn with once it has the tool's result.
pub const FINAL_TEXT: &str = "Thanks, carrying on with those answers.";

/// What the model got back from askuser's tool, as the host sent it.
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct Seen {
    /// The result's text (Claude Code: the `tool_result` content; Codex: the
    /// `function_call_output`; Gemini CLI: the `functionResponse`'s output or error).
    pub text: String,
    /// Whether the host marked it as an error.
    pub error: bool,
}

#[derive(Default)]
struct State {
    arguments: Value,
    tool: String,
    /// The tool's whole name on the Messages API, where the host is not Claude
    /// Code (`mcp__askuser__<tool>`): `askuser_<tool>` for `opencode`.
    messages_tool: Option<String>,
    seen: Vec<Seen>,
    /// Every request's method and path, for a failure's message.
    requests: Vec<String>,
    /// Whether the model has called askuser's tool.
    called: bool,
    /// How many main turns went out without askuser's tool.
    not_offered: usize,
}

/// The scripted model, serving until dropped.
pub struct Model {
    port: u16,
    state: Arc<Mutex<State>>,
    stop: Arc<AtomicBool>,
}

impl Model {
    /// Starts a model that calls askuser's `tool` (`ask_user`, `AskUserQuestion`)
    /// with `arguments` on a port of 127.0.0.1.
    pub fn start(tool: &str, arguments: Value) -> Self {
        let listener = TcpListener::bind("127.0.0.1:0").expect("a loopback port");
        let port = listener.local_addr().expect("a bound address").port();
        let state = Arc::new(Mutex::new(State {
            arguments,
            tool: tool.to_owned(),
            ..State::default()
        }));
        let stop = Arc::new(AtomicBool::new(false));
        let (shared, stopping) = (Arc::clone(&state), Arc::clone(&stop));
        std::thread::spawn(move || {
            for stream in listener.incoming() {
                if stopping.load(Ordering::SeqCst) {
                    return;
                }
                let Ok(stream) = stream else { continue };
                let state = Arc::clone(&shared);
                std::thread::spawn(move || serve(&stream, &state));
            }
        });
        Self { port, state, stop }
    }

    /// The same model, calling the tool by `name` on the Messages API (`opencode`
    /// names an MCP server's tools `<server>_<tool>`).
    #[allow(dead_code)] // used by real_hosts.rs
    pub fn naming(self, name: &str) -> Self {
        self.state.lock().expect("the model's state").messages_tool = Some(name.to_owned());
        self
    }

    /// The base URL (`http://127.0.0.1:PORT`).
    pub fn url(&self) -> String {
        format!("http://127.0.0.1:{}", self.port)
    }

    /// Every tool result the model got so far.
    pub fn seen(&self) -> Vec<Seen> {
        self.lock().seen.clone()
    }

    /// Whether the model has called askuser's tool (in any turn so far).
    pub fn called(&self) -> bool {
        self.lock().called
    }

    /// How many of the host's main turns went out before askuser's tool was
    /// offered (its MCP server not yet connected).
    pub fn not_offered(&self) -> usize {
        self.lock().not_offered
    }

    /// Every request so far, as `METHOD PATH`.
    pub fn requests(&self) -> Vec<String> {
        self.lock().requests.clone()
    }

    /// Waits (up to `limit`) for the tool's result to reach the model; `what`
    /// (say, the host's screen) is shown when it does not.
    pub fn wait_for_result(&self, limit: Duration, what: impl Fn() -> String) -> Seen {
        let start = Instant::now();
        loop {
            if let Some(seen) = self.lock().seen.first() {
                return seen.clone();
            }
            assert!(
                start.elapsed() < limit,
                "the tool's result never reached the model; requests: {:?}\n{}",
                self.lock().requests,
                what()
            );
            std::thread::sleep(Duration::from_millis(100));
        }
    }

    fn lock(&self) -> std::sync::MutexGuard<'_, State> {
        self.state.lock().unwrap_or_else(PoisonError::into_inner)
    }
}

impl Drop for Model {
    fn drop(&mut self) {
        self.stop.store(true, Ordering::SeqCst);
        // Wakes the accepting thread so that it sees the stop.
        let _ = TcpStream::connect(("127.0.0.1", self.port));
    }
}

/// A response: its content type and body.
type Reply = (&'static str, String);

fn serve(stream: &TcpStream, state: &Mutex<State>) {
    let mut reader = BufReader::new(stream);
    let Some((method, path, body)) = read_request(&mut reader) else {
        return;
    };
    let request: Value = serde_json::from_slice(&body).unwrap_or(Value::Null);
    let mut state = state.lock().unwrap_or_else(PoisonError::into_inner);
    state.requests.push(format!("{method} {path}"));
    let reply = if method != "POST" {
        None
    } else if path.starts_with("/v1/messages/count_tokens") {
        Some(("application/json", json!({"input_tokens": 1}).to_string()))
    } else if path.starts_with("/v1/messages") {
        Some(anthropic(&mut state, &request))
    } else if path.starts_with("/v1/responses") {
        Some(responses(&mut state, &request))
    } else if path.contains(":generateContent") || path.contains(":streamGenerateContent") {
        Some(gemini(&mut state, &request, path.contains(":stream")))
    } else {
        None
    };
    drop(state);
    let (status, (content_type, body)) = match reply {
        Some(reply) => ("200 OK", reply),
        None => ("404 Not Found", ("application/json", "{}".to_owned())),
    };
    let head = format!(
        "HTTP/1.1 {status}\r\ncontent-type: {content_type}\r\ncontent-length: {}\r\nconnection: close\r\n\r\n",
        body.len()
    );
    let mut stream = stream;
    let _ = stream.write_all(head.as_bytes());
    let _ = stream.write_all(body.as_bytes());
    let _ = stream.flush();
}

/// Reads one request: its method, path and body (by `content-length`, or chunked).
fn read_request(reader: &mut impl BufRead) -> Option<(String, String, Vec<u8>)> {
    let mut line = String::new();
    reader.read_line(&mut line).ok()?;
    let mut parts = line.split_whitespace();
    let (method, path) = (parts.next()?.to_owned(), parts.next()?.to_owned());
    let (mut length, mut chunked) = (0, false);
    loop {
        let mut header = String::new();
        reader.read_line(&mut header).ok()?;
        let header = header.trim_end();
        if header.is_empty() {
            break;
        }
        let (name, value) = header.split_once(':')?;
        let value = value.trim();
        if name.eq_ignore_ascii_case("content-length") {
            length = value.parse().ok()?;
        } else if name.eq_ignore_ascii_case("transfer-encoding") {
            chunked = value.eq_ignore_ascii_case("chunked");
        }
    }
    let mut body = Vec::new();
    if chunked {
        loop {
            let mut size = String::new();
            reader.read_line(&mut size).ok()?;
            let size = usize::from_str_radix(size.trim().split(';').next()?, 16).ok()?;
            let mut chunk = vec![0; size + 2];
            reader.read_exact(&mut chunk).ok()?;
            if size == 0 {
                break;
            }
            body.extend_from_slice(&chunk[..size]);
        }
    } else {
        body.resize(length, 0);
        reader.read_exact(&mut body).ok()?;
    }
    Some((method, path, body))
}

/// What the model does next: call the tool, or say a text.
enum Turn {
    Call(Value),
    Say(&'static str),
}

/// The tools a request offers the model.
#[derive(Clone, Copy, PartialEq)]
enum Offer {
    /// askuser's tool, among others or alone.
    Ours,
    /// Tools, but not askuser's: the host's main turn went out before its MCP
    /// server was connected.
    OnlyTheHosts,
    /// No tools: a side request (a title, a summary).
    None,
}

impl Offer {
    fn of(ours: bool, any: bool) -> Self {
        match (ours, any) {
            (true, _) => Self::Ours,
            (false, true) => Self::OnlyTheHosts,
            (false, false) => Self::None,
        }
    }
}

/// The script's step, given the tools the request offers and the tool's result
/// it carries, if any (recorded).
fn step(state: &mut State, offer: Offer, result: Option<Seen>) -> Turn {
    if let Some(seen) = result {
        state.seen.push(seen);
        Turn::Say(FINAL_TEXT)
    } else {
        match offer {
            Offer::Ours => {
                state.called = true;
                Turn::Call(state.arguments.clone())
            }
            Offer::OnlyTheHosts => {
                state.not_offered += 1;
                Turn::Say(
                    "(askuser's tool was not offered: the host asked before its MCP server was connected)",
                )
            }
            Offer::None => Turn::Say("(a side request, answered by the scripted model)"),
        }
    }
}

/// Text of a tool result's content: a string, or the texts of its blocks.
fn text_of(content: &Value) -> String {
    match content {
        Value::String(text) => text.clone(),
        Value::Array(blocks) => blocks
            .iter()
            .filter_map(|block| block["text"].as_str())
            .collect::<Vec<_>>()
            .join("\n"),
        other => other.to_string(),
    }
}

/// The Anthropic Messages API (`POST /v1/messages`), streamed or not.
fn anthropic(state: &mut State, request: &Value) -> Reply {
    let tool =
        (state.messages_tool.clone()).unwrap_or_else(|| format!("mcp__askuser__{}", state.tool));
    let tools = request["tools"].as_array();
    let offer = Offer::of(
        tools.is_some_and(|tools| tools.iter().any(|t| t["name"] == tool.as_str())),
        tools.is_some_and(|tools| !tools.is_empty()),
    );
    let last = request["messages"]
        .as_array()
        .and_then(|m| m.last())
        .cloned()
        .unwrap_or_default();
    let result = last["content"].as_array().and_then(|blocks| {
        blocks
            .iter()
            .find(|b| b["type"] == "tool_result" && b["tool_use_id"] == "toolu_askuser")
            .map(|b| Seen {
                text: text_of(&b["content"]),
                error: b["is_error"] == true,
            })
    });
    let model = request["model"].clone();
    let (content, block, delta, stop) = match step(state, offer, result) {
        Turn::Call(arguments) => (
            json!({"type": "tool_use", "id": "toolu_askuser", "name": tool, "input": arguments}),
            json!({"type": "tool_use", "id": "toolu_askuser", "name": tool, "input": {}}),
            json!({"type": "input_json_delta", "partial_json": arguments.to_string()}),
            "tool_use",
        ),
        Turn::Say(text) => (
            json!({"type": "text", "text": text}),
            json!({"type": "text", "text": ""}),
            json!({"type": "text_delta", "text": text}),
            "end_turn",
        ),
    };
    if request["stream"] != true {
        let message = json!({"id": "msg_scripted", "type": "message", "role": "assistant",
            "model": model, "content": [content], "stop_reason": stop, "stop_sequence": null,
            "usage": {"input_tokens": 1, "output_tokens": 1}});
        return ("application/json", message.to_string());
    }
    let events = [
        json!({"type": "message_start", "message": {"id": "msg_scripted", "type": "message", "role": "assistant",
            "model": model, "content": [], "stop_reason": null, "stop_sequence": null,
            "usage": {"input_tokens": 1, "output_tokens": 0}}}),
        json!({"type": "content_block_start", "index": 0, "content_block": block}),
        json!({"type": "content_block_delta", "index": 0, "delta": delta}),
        json!({"type": "content_block_stop", "index": 0}),
        json!({"type": "message_delta", "delta": {"stop_reason": stop, "stop_sequence": null},
            "usage": {"output_tokens": 1}}),
        json!({"type": "message_stop"}),
    ];
    ("text/event-stream", sse(&events))
}

/// Server-sent events, each named by its `type`.
fn sse(events: &[Value]) -> String {
    events
        .iter()
        .map(|event| {
            let name = event["type"].as_str().unwrap_or("");
            ["event: ", name, "\ndata: ", &event.to_string(), "\n\n"].concat()
        })
        .collect()
}

/// The `OpenAI` Responses API (`POST /v1/responses`, streamed), as Codex calls it:
/// an MCP server's tools come as one `namespace` tool (`mcp__askuser`).
fn responses(state: &mut State, request: &Value) -> Reply {
    let offered = request["tools"]
        .as_array()
        .is_some_and(|tools| tools.iter().any(|t| t["name"] == "mcp__askuser"));
    let result = request["input"].as_array().and_then(|items| {
        items
            .iter()
            .find(|i| i["type"] == "function_call_output" && i["call_id"] == "call_askuser")
            .map(|i| Seen {
                text: text_of(&i["output"]),
                error: false,
            })
    });
    let item = match step(state, Offer::of(offered, false), result) {
        Turn::Call(arguments) => json!({"type": "function_call", "id": "fc_askuser",
            "call_id": "call_askuser", "namespace": "mcp__askuser", "name": state.tool,
            "arguments": arguments.to_string()}),
        Turn::Say(text) => json!({"type": "message", "role": "assistant", "id": "msg_scripted",
            "content": [{"type": "output_text", "text": text, "annotations": []}]}),
    };
    let events = [
        json!({"type": "response.created", "response": {"id": "resp_scripted"}}),
        json!({"type": "response.output_item.done", "output_index": 0, "item": item}),
        json!({"type": "response.completed", "response": {"id": "resp_scripted", "usage": {
            "input_tokens": 1, "input_tokens_details": null, "output_tokens": 1,
            "output_tokens_details": null, "total_tokens": 2}}}),
    ];
    ("text/event-stream", sse(&events))
}

/// The Gemini API (`models/M:generateContent`, `:streamGenerateContent?alt=sse`),
/// as Gemini CLI calls it: an MCP server's tools are `mcp_<server>_<tool>`. A
/// request for JSON (the CLI's own routing and checks) gets an empty object.
fn gemini(state: &mut State, request: &Value, stream: bool) -> Reply {
    let tool = format!("mcp_askuser_{}", state.tool);
    let offered = request["tools"].as_array().is_some_and(|tools| {
        tools.iter().any(|t| {
            t["functionDeclarations"]
                .as_array()
                .is_some_and(|d| d.iter().any(|f| f["name"] == tool.as_str()))
        })
    });
    let last = request["contents"]
        .as_array()
        .and_then(|c| c.last())
        .cloned()
        .unwrap_or_default();
    let result = last["parts"].as_array().and_then(|parts| {
        parts
            .iter()
            .find(|p| p["functionResponse"]["name"] == tool.as_str())
            .map(|p| {
                let response = &p["functionResponse"]["response"];
                match response.get("error") {
                    Some(error) => Seen {
                        text: text_of(error),
                        error: true,
                    },
                    None => Seen {
                        text: text_of(&response["output"]),
                        error: false,
                    },
                }
            })
    });
    let wants_json = request["generationConfig"]["responseMimeType"] == "application/json";
    let parts = match step(state, Offer::of(offered, false), result) {
        Turn::Call(arguments) => json!([{"functionCall": {"name": tool, "args": arguments}}]),
        Turn::Say(_) if wants_json => json!([{"text": "{}"}]),
        Turn::Say(text) => json!([{"text": text}]),
    };
    let chunk = json!({"candidates": [{"content": {"role": "model", "parts": parts},
        "finishReason": "STOP", "index": 0}],
        "usageMetadata": {"promptTokenCount": 1, "candidatesTokenCount": 1, "totalTokenCount": 2}});
    if stream {
        ("text/event-stream", format!("data: {chunk}\r\n\r\n"))
    } else {
        ("application/json", chunk.to_string())
    }
}
