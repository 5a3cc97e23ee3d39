//! Secrets: comparing them (the publish key, token hashes) in time that does not depend on where
//! they differ, so an attacker cannot guess them a byte at a time, and only once the attempt was
//! paid for from the caller's allowance of wrong keys (`fair::Paid`), so they cannot be guessed
//! quickly either; and the one `Token` type that makes, hashes and checks the bearer tokens of
//! calendars (edit tokens) and sync blobs (write tokens), which the server keeps only as their
//! SHA-256.

use sha2::{Digest, Sha256};

use crate::fair::Paid;

/// Whether the key `given` is `expected`, once the attempt is paid for.
pub fn key_matches(_paid: Paid, given: &str, expected: &str) -> bool {
    same(given, expected)
}

/// Whether `a` and `b` are equal, looking at every byte either way.
fn same(a: &str, b: &str) -> bool {
    a.len() == b.len()
        && a.bytes()
            .zip(b.bytes())
            .fold(0u8, |acc, (x, y)| acc | (x ^ y))
            == 0
}

/// A bearer token as a client holds it.
#[derive(Clone, PartialEq, Eq)]
pub struct Token(String);

impl std::fmt::Debug for Token {
    fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        f.write_str("Token(…)")
    }
}

/// Shortest and longest token a client may make itself (43 is 32 random bytes in base64url).
pub const MIN_TOKEN_CHARS: usize = 32;
pub const MAX_TOKEN_CHARS: usize = 128;

impl Token {
    /// A fresh token: 244 random bits as 64 hex digits.
    pub fn generate() -> Token {
        Token(format!(
            "{}{}",
            uuid::Uuid::new_v4().simple(),
            uuid::Uuid::new_v4().simple()
        ))
    }

    /// A token as a client sent it (trimmed); `None` when it is empty.
    pub fn given(text: &str) -> Option<Token> {
        let text = text.trim();
        (!text.is_empty()).then(|| Token(text.to_owned()))
    }

    /// A token a client made itself, to be stored: long enough to be unguessable and of the
    /// characters of base64url and hex only.
    pub fn made_by_client(text: &str) -> Option<Token> {
        let text = text.trim();
        let ok = (MIN_TOKEN_CHARS..=MAX_TOKEN_CHARS).contains(&text.len())
            && text
                .bytes()
                .all(|b| b.is_ascii_alphanumeric() || b == b'-' || b == b'_');
        ok.then(|| Token(text.to_owned()))
    }

    pub fn as_str(&self) -> &str {
        &self.0
    }

    /// What is stored: the SHA-256 of the token, in hex.
    pub fn hash(&self) -> String {
        crate::hex::encode(&Sha256::digest(self.0.as_bytes()))
    }

    /// The token as presented with a request, once comparing it is paid for.
    pub fn presented(self, paid: Paid) -> PresentedToken {
        PresentedToken {
            token: self,
            _paid: paid,
        }
    }
}

/// A token a request presented, its comparison paid for from the caller's allowance of wrong
/// keys: the only thing a stored token hash is ever compared with.
#[derive(Debug, Clone)]
pub struct PresentedToken {
    token: Token,
    _paid: Paid,
}

impl PresentedToken {
    /// Whether this is the token whose hash is `stored_hash`.
    pub fn matches(&self, stored_hash: &str) -> bool {
        same(&self.token.hash(), stored_hash)
    }

    pub fn token(&self) -> &Token {
        &self.token
    }
}

/// `token` as a unit test presents it (the crate's own tests only).
#[cfg(test)]
pub(crate) fn presented_in_a_test(token: Token) -> PresentedToken {
    token.presented(Paid::in_a_test())
}

/// Whether `token` (if any) is the one whose hash is `stored_hash`.
pub fn token_matches(token: Option<&PresentedToken>, stored_hash: &str) -> bool {
    token.is_some_and(|t| t.matches(stored_hash))
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn only_equal_strings_are_the_same() {
        assert!(same("abc", "abc"));
        assert!(!same("abc", "abd"));
        assert!(!same("abc", "abcd"));
        assert!(same("", ""));
    }

    fn paid() -> Paid {
        Paid::in_a_test()
    }

    #[test]
    fn tokens_are_stored_hashed_and_checked_against_the_hash() {
        let token = Token::generate();
        assert_eq!(token.as_str().len(), 64);
        let stored = token.hash();
        assert_ne!(stored, token.as_str());
        assert!(token.clone().presented(paid()).matches(&stored));
        assert!(!Token::generate().presented(paid()).matches(&stored));
        let spaced = Token::given(&format!(" {} ", token.as_str())).expect("a token");
        assert!(token_matches(Some(&spaced.presented(paid())), &stored));
        assert!(!token_matches(None, &stored));
        assert!(key_matches(paid(), "k3y", "k3y") && !key_matches(paid(), "k3y", "key"));
        assert_eq!(Token::given("  "), None);
    }

    #[test]
    fn a_client_made_token_must_be_long_and_plain() {
        let base64url = "q3Tz-0_aB1c2D3e4F5g6H7i8J9k0L1m2N3o4P5q6R7s";
        assert!(Token::made_by_client(base64url).is_some());
        assert!(Token::made_by_client("short").is_none());
        assert!(Token::made_by_client(&"a".repeat(129)).is_none());
        assert!(Token::made_by_client(&format!("{}{}", "a".repeat(40), "/+=")).is_none());
    }
}
