//! How every subcommand ends: its text on stdout and status 0, or one error line on stderr and
//! status 1; a closed stdout pipe ends quietly.

/// Writes `result` and returns the exit status.
pub fn finish(
    result: Result<String, String>,
    stdout: &mut dyn std::io::Write,
    stderr: &mut dyn std::io::Write,
) -> u8 {
    let text = match result {
        Ok(text) => text,
        Err(message) => {
            // Nothing more can be done when stderr is gone too.
            let _ = writeln!(stderr, "error: {}", message.replace('\n', " "));
            return 1;
        }
    };
    match write!(stdout, "{text}").and_then(|()| stdout.flush()) {
        Ok(()) => 0,
        Err(e) if e.kind() == std::io::ErrorKind::BrokenPipe => 0,
        Err(e) => {
            let _ = writeln!(stderr, "error: cannot write the output: {e}");
            1
        }
    }
}
