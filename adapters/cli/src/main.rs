//! `askuser`: ask a person an LLM agent's questions, in the terminal, over JSON
//! lines, or through a pending file; and inspect, replay, fork and compact the
//! recorded sessions. Run `askuser help` for the commands.

fn main() -> std::process::ExitCode {
    askuser_cli::run()
}
