//! The one error type of the library and its mapping to exit codes (DESIGN §7).

use std::fmt;
use std::path::Path;

/// What went wrong, at the granularity the command line cares about.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub enum ErrorKind {
    /// Bad input data or a failure while running (exit code 1).
    Input,
    /// A policy (scheduler or selector) gave an impossible answer: a tenant
    /// that is not eligible, a model that is unavailable or already tried,
    /// a job that is not waiting. A bug in the policy, not in the input
    /// (exit code 1; the message starts with "policy error").
    Policy,
    /// The command line itself is wrong (exit code 2).
    Usage,
    /// The run was stopped by a signal (SIGINT, SIGTERM, SIGHUP); exit
    /// code 128 + the signal's number.
    Interrupted,
    /// The reader of standard output went away (`tenantsim run --json |
    /// head`): not a failure of the command, so exit code 0 and no message
    /// (DESIGN §7). Everything written to files is complete by then.
    OutputClosed,
}

/// An error with a message meant for a human: it names the file, the line or
/// field, and what was expected.
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct Error {
    kind: ErrorKind,
    message: String,
}

/// Result alias used throughout the crate.
pub type Result<T, E = Error> = std::result::Result<T, E>;

impl Error {
    /// An input or runtime error (exit code 1).
    pub fn input(message: impl Into<String>) -> Self {
        Self {
            kind: ErrorKind::Input,
            message: message.into(),
        }
    }

    /// A policy's impossible answer ([`ErrorKind::Policy`]); the message
    /// is prefixed with "policy error: ".
    pub fn policy(message: impl Into<String>) -> Self {
        Self {
            kind: ErrorKind::Policy,
            message: format!("policy error: {}", message.into()),
        }
    }

    /// A command-line usage error (exit code 2).
    pub fn usage(message: impl Into<String>) -> Self {
        Self {
            kind: ErrorKind::Usage,
            message: message.into(),
        }
    }

    /// The run was interrupted before it finished.
    pub fn interrupted(message: impl Into<String>) -> Self {
        Self {
            kind: ErrorKind::Interrupted,
            message: message.into(),
        }
    }

    /// A failed write of `what` to standard output: [`ErrorKind::OutputClosed`]
    /// when the reader closed the pipe, an input error otherwise.
    pub fn stdout(what: &str, err: &std::io::Error) -> Self {
        if err.kind() == std::io::ErrorKind::BrokenPipe {
            Self {
                kind: ErrorKind::OutputClosed,
                message: format!("the reader of stdout closed it while {what} was written"),
            }
        } else {
            Self::input(format!("cannot write {what} to stdout: {err}"))
        }
    }

    /// An I/O failure on `path`, phrased as "`verb` `path`: cause".
    pub fn io(verb: &str, path: &Path, err: &std::io::Error) -> Self {
        Self::input(format!("cannot {verb} {}: {err}", path.display()))
    }

    /// Prefix the message with more context ("while doing X: ...").
    #[must_use]
    pub fn context(mut self, context: impl fmt::Display) -> Self {
        self.message = format!("{context}: {}", self.message);
        self
    }

    /// The kind of error.
    pub fn kind(&self) -> ErrorKind {
        self.kind
    }

    /// Whether this is a closed standard output ([`ErrorKind::OutputClosed`]):
    /// the command ends quietly with exit code 0.
    pub fn is_output_closed(&self) -> bool {
        self.kind == ErrorKind::OutputClosed
    }

    /// The human-readable message.
    pub fn message(&self) -> &str {
        &self.message
    }

    /// The process exit code for this error (DESIGN §7).
    pub fn exit_code(&self) -> i32 {
        match self.kind {
            ErrorKind::OutputClosed => 0,
            ErrorKind::Input | ErrorKind::Policy => 1,
            ErrorKind::Interrupted => crate::core::interrupt::exit_code(),
            ErrorKind::Usage => 2,
        }
    }
}

impl fmt::Display for Error {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        f.write_str(&self.message)
    }
}

impl std::error::Error for Error {}
