//! Comparing secrets (the publish key, edit-token hashes) in time that does not depend on where
//! they differ, so an attacker cannot guess them a byte at a time.

/// Whether `a` and `b` are equal, looking at every byte either way.
pub fn same(a: &str, b: &str) -> bool {
    a.len() == b.len()
        && a.bytes()
            .zip(b.bytes())
            .fold(0u8, |acc, (x, y)| acc | (x ^ y))
            == 0
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
}
