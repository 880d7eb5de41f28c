//! The one path from a bad request to a `tonic::Status`.
//!
//! Handlers turn each rejected item into an [`Invalid`] (its field path and
//! the engine's reason) and return it with `?`; batch conversions gather
//! every bad item into [`Violations`] with [`collect_batch`]. The conversion
//! to `Status` happens here only: INVALID_ARGUMENT whose message is
//! `"<field>: <reason>"` of the first bad item (followed by `(and N more)`
//! when there are others) and whose details carry a standard
//! `google.rpc.BadRequest` with one `FieldViolation` per bad item (at most
//! [`MAX_VIOLATIONS`]), so clients in any language can read the field paths.
//! Echoed user input is shortened here too, so no message grows with the
//! input.

use std::fmt::Display;

use tonic::{Code, Status};
use tonic_types::{ErrorDetails, FieldViolation, StatusExt};

/// Longest piece of quoted user input kept in a message, in characters.
pub const MAX_ECHO_CHARS: usize = 64;
/// Longest message of a status built here, in characters.
pub const MAX_MESSAGE_CHARS: usize = 1000;
/// Most field violations one status carries; further bad items are only
/// counted in its message.
pub const MAX_VIOLATIONS: usize = 100;

/// One rejected item of a request: where it is (`hands[3]`,
/// `items[2].rules.numbers`) and why.
#[derive(Clone, Debug, PartialEq, Eq)]
pub struct Invalid {
    /// The field path, in the request's own field names.
    pub field: String,
    /// Why the item was rejected.
    pub reason: String,
}

impl Invalid {
    pub fn new(field: impl Into<String>, reason: impl Display) -> Invalid {
        Invalid {
            field: field.into(),
            reason: reason.to_string(),
        }
    }

    /// A required message field that the client left unset.
    pub fn missing(field: impl Into<String>) -> Invalid {
        Invalid::new(field, "required field is missing")
    }

    /// The same violation seen from an enclosing message: `items[2]` +
    /// `tiles[0]` is `items[2].tiles[0]`.
    pub fn within(mut self, prefix: impl Display) -> Invalid {
        self.field = format!("{prefix}.{}", self.field);
        self
    }
}

impl From<Invalid> for Status {
    fn from(bad: Invalid) -> Status {
        Violations::from(bad).into()
    }
}

/// Every rejected item of a request, in request order: the first
/// [`MAX_VIOLATIONS`] kept, the rest only counted.
#[derive(Clone, Debug, Default, PartialEq, Eq)]
pub struct Violations {
    kept: Vec<Invalid>,
    total: usize,
}

impl Violations {
    /// Adds one more rejected item.
    pub fn push(&mut self, bad: Invalid) {
        self.total += 1;
        if self.kept.len() < MAX_VIOLATIONS {
            self.kept.push(bad);
        }
    }

    /// Adds the rejected items of `other` after those of `self`.
    pub fn append(&mut self, other: Violations) {
        let dropped = other.total - other.kept.len();
        other.kept.into_iter().for_each(|bad| self.push(bad));
        self.total += dropped;
    }

    /// The kept violations, in request order.
    pub fn kept(&self) -> &[Invalid] {
        &self.kept
    }

    /// How many items were rejected, kept or not.
    pub fn total(&self) -> usize {
        self.total
    }
}

impl From<Invalid> for Violations {
    fn from(bad: Invalid) -> Violations {
        Violations {
            kept: vec![bad],
            total: 1,
        }
    }
}

impl FromIterator<Invalid> for Violations {
    fn from_iter<I: IntoIterator<Item = Invalid>>(items: I) -> Violations {
        let mut all = Violations::default();
        items.into_iter().for_each(|bad| all.push(bad));
        all
    }
}

impl From<Violations> for Status {
    fn from(all: Violations) -> Status {
        let Some(first) = all.kept.first() else {
            return Status::internal("internal error: a rejection without a violation");
        };
        let mut message = format!("{}: {}", first.field, shorten(&first.reason));
        if all.total > 1 {
            message = format!("{} (and {} more)", cap(message), all.total - 1);
        }
        let violations: Vec<_> = all
            .kept
            .into_iter()
            .map(|bad| FieldViolation::new(bad.field, cap(shorten(&bad.reason))))
            .collect();
        let details = ErrorDetails::with_bad_request(violations);
        Status::with_error_details(Code::InvalidArgument, cap(message), details)
    }
}

/// Collects the converted items of a batch, in order, or every bad item of
/// it: one violation per error (an item may give several, e.g. both sides of
/// a pair). Every item is converted even after an error, so one answer names
/// all the bad items; nothing is formatted for good ones.
pub fn collect_batch<T, E: Into<Violations>>(
    items: impl IntoIterator<Item = Result<T, E>>,
) -> Result<Vec<T>, Violations> {
    let items = items.into_iter();
    let mut good = Vec::with_capacity(items.size_hint().0);
    let mut bad: Option<Violations> = None;
    for item in items {
        match (item, &mut bad) {
            (Ok(value), None) => good.push(value),
            (Ok(_), Some(_)) => {}
            (Err(e), Some(bad)) => bad.append(e.into()),
            (Err(e), None) => bad = Some(e.into()),
        }
    }
    match bad {
        None => Ok(good),
        Some(bad) => Err(bad),
    }
}

/// Names the field of a failed conversion; the path is built only on error,
/// so nothing is formatted per item on the success path.
pub trait FieldResult<T> {
    fn field<F: Into<String>>(self, field: impl FnOnce() -> F) -> Result<T, Invalid>;
}

impl<T, E: Display> FieldResult<T> for Result<T, E> {
    fn field<F: Into<String>>(self, field: impl FnOnce() -> F) -> Result<T, Invalid> {
        self.map_err(|e| Invalid::new(field(), e))
    }
}

/// Checks a batch size: not empty and at most `max` items.
pub fn check_batch(field: &str, len: usize, max: usize) -> Result<(), Invalid> {
    if len == 0 {
        return Err(Invalid::new(field, "empty batch: give at least one item"));
    }
    if len > max {
        return Err(Invalid::new(
            field,
            format!("batch of {len} items is over the limit of {max}"),
        ));
    }
    Ok(())
}

/// A worker task that panicked or was cancelled: INTERNAL, the one place
/// where such failures reach the wire.
pub fn task_failed(error: tokio::task::JoinError) -> Status {
    if error.is_panic() {
        Status::internal("internal error: a worker task panicked")
    } else {
        Status::internal("internal error: a worker task was cancelled")
    }
}

/// Shortens every double-quoted piece of `text` (user input echoed with
/// `{:?}`) longer than [`MAX_ECHO_CHARS`] to its head and its length:
/// `"AAAA…" (20000 chars)`.
fn shorten(text: &str) -> String {
    let mut out = String::with_capacity(text.len().min(2 * MAX_MESSAGE_CHARS));
    let mut rest = text;
    while let Some(open) = rest.find('"') {
        out.push_str(&rest[..=open]);
        rest = &rest[open + 1..];
        // The closing quote: the first one not escaped by a backslash.
        let mut escaped = false;
        let close = rest.char_indices().find_map(|(i, c)| {
            let end = c == '"' && !escaped;
            escaped = c == '\\' && !escaped;
            end.then_some(i)
        });
        let Some(close) = close else {
            break;
        };
        let quoted = &rest[..close];
        let chars = quoted.chars().count();
        if chars > MAX_ECHO_CHARS {
            out.extend(quoted.chars().take(MAX_ECHO_CHARS));
            out.push_str(&format!("…\" ({chars} chars)"));
        } else {
            out.push_str(quoted);
            out.push('"');
        }
        rest = &rest[close + 1..];
    }
    out.push_str(rest);
    out
}

/// Cuts `text` to at most [`MAX_MESSAGE_CHARS`] characters.
fn cap(text: String) -> String {
    match text.char_indices().nth(MAX_MESSAGE_CHARS) {
        Some((end, _)) => format!("{}…", &text[..end]),
        None => text,
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn invalid_carries_a_bad_request_violation() {
        let status = Status::from(Invalid::new("hands", "no good").within("items[2]"));
        assert_eq!(status.code(), Code::InvalidArgument);
        assert_eq!(status.message(), "items[2].hands: no good");
        let bad = status
            .get_details_bad_request()
            .expect("BadRequest details");
        assert_eq!(bad.field_violations.len(), 1);
        assert_eq!(bad.field_violations[0].field, "items[2].hands");
        assert_eq!(bad.field_violations[0].description, "no good");
    }

    #[test]
    fn every_bad_item_is_a_violation_up_to_the_cap() {
        let items = (0..MAX_VIOLATIONS + 50).map(|i| {
            if i % 2 == 0 {
                Ok(i)
            } else {
                Err(Invalid::new(format!("x[{i}]"), "odd"))
            }
        });
        let all = collect_batch(items).unwrap_err();
        assert_eq!(all.total(), (MAX_VIOLATIONS + 50) / 2);
        let status = Status::from(all);
        assert_eq!(status.message(), "x[1]: odd (and 74 more)");
        let bad = status
            .get_details_bad_request()
            .expect("BadRequest details");
        assert_eq!(bad.field_violations.len(), (MAX_VIOLATIONS + 50) / 2);
        assert_eq!(bad.field_violations[1].field, "x[3]");

        let many =
            (0..3 * MAX_VIOLATIONS).map(|i| Err::<(), _>(Invalid::new(format!("y[{i}]"), "no")));
        let mut all = collect_batch(many).unwrap_err();
        all.append(Invalid::new("z", "no").into());
        assert_eq!(
            (all.kept().len(), all.total()),
            (MAX_VIOLATIONS, 3 * MAX_VIOLATIONS + 1)
        );
        let status = Status::from(all);
        assert_eq!(
            status.message(),
            format!("y[0]: no (and {} more)", 3 * MAX_VIOLATIONS)
        );
        let bad = status
            .get_details_bad_request()
            .expect("BadRequest details");
        assert_eq!(bad.field_violations.len(), MAX_VIOLATIONS);

        let fine = collect_batch((0..5).map(Ok::<_, Invalid>));
        assert_eq!(fine, Ok(vec![0, 1, 2, 3, 4]));
    }

    #[test]
    fn long_echoes_are_shortened() {
        let long = "A".repeat(20_000);
        let status = Status::from(Invalid::new("hand", format!("unknown rank {long:?} at 0")));
        let head = "A".repeat(MAX_ECHO_CHARS);
        assert_eq!(
            status.message(),
            format!("hand: unknown rank \"{head}…\" (20000 chars) at 0")
        );
        assert!(status.message().len() < 1024);
        // Short quotes, escaped quotes and unbalanced quotes stay as they are.
        assert_eq!(shorten(r#"a "b\"c" d"#), r#"a "b\"c" d"#);
        assert_eq!(shorten("x \"open"), "x \"open");
        // Whatever the reason, the message stays bounded.
        let status = Status::from(Invalid::new("f", "é".repeat(5_000)));
        assert!(status.message().chars().count() <= MAX_MESSAGE_CHARS + 1);
    }

    #[test]
    fn field_is_built_only_on_error() {
        let ok: Result<u8, &str> = Ok(1);
        assert_eq!(ok.field(|| -> String { unreachable!() }), Ok(1));
        let err: Result<u8, &str> = Err("bad");
        assert_eq!(
            err.field(|| "x[1]").unwrap_err(),
            Invalid::new("x[1]", "bad")
        );
    }
}
