//! Lower-case hexadecimal, for digests: ETags, edit-token hashes, asset version tags.

use std::fmt::Write;

pub fn encode(bytes: &[u8]) -> String {
    let mut out = String::with_capacity(bytes.len() * 2);
    for b in bytes {
        let _ = write!(out, "{b:02x}");
    }
    out
}

#[cfg(test)]
mod tests {
    #[test]
    fn bytes_become_two_lower_case_digits_each() {
        assert_eq!(super::encode(&[0, 0x0f, 0xab]), "000fab");
        assert_eq!(super::encode(&[]), "");
    }
}
