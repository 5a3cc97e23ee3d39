//! A vault written in parts: the `Sync-Parts` header (the names of every part the new version
//! references) and the framed body that carries the manifest and the parts that changed
//! (big-endian: `u32` manifest length, the manifest, then per part `u8` name length, the name,
//! `u32` part length, the part; until the body ends exactly). Pure: nothing here stores.

use std::collections::HashSet;

/// The most parts one vault may reference.
pub const MAX_PARTS: usize = 64;

/// The longest part name (a base64url SHA-256 is 43 characters).
pub const MAX_NAME_LEN: usize = 43;

/// Why a header, a name or a framed body was refused (each a 400).
#[derive(Debug, PartialEq, Eq, thiserror::Error)]
pub enum FrameError {
    #[error("a part's name must be 1 to 43 letters, digits, '-' or '_'")]
    BadName,
    #[error("Sync-Parts names {0} parts: a vault has at most 64")]
    TooMany(usize),
    #[error("Sync-Parts names the part {0} twice")]
    ListedTwice(String),
    #[error("the body ends inside {0}: send the manifest and the parts as framed")]
    Truncated(&'static str),
    #[error("the manifest is empty")]
    EmptyManifest,
    #[error("the part {0} is empty")]
    EmptyPart(String),
    #[error("the body sends the part {0}, which Sync-Parts does not name")]
    NotListed(String),
    #[error("the body sends the part {0} twice")]
    SentTwice(String),
}

/// Whether `name` may name a part: `[A-Za-z0-9_-]{1,43}`.
pub fn valid_name(name: &str) -> bool {
    (1..=MAX_NAME_LEN).contains(&name.len())
        && name
            .bytes()
            .all(|b| b.is_ascii_alphanumeric() || b == b'-' || b == b'_')
}

/// The names a `Sync-Parts` header lists (comma separated, spaces around commas allowed; an
/// empty header lists none).
pub fn parse_names(header: &str) -> Result<Vec<String>, FrameError> {
    let header = header.trim();
    if header.is_empty() {
        return Ok(Vec::new());
    }
    let names: Vec<&str> = header.split(',').map(str::trim).collect();
    if names.len() > MAX_PARTS {
        return Err(FrameError::TooMany(names.len()));
    }
    let mut seen = HashSet::new();
    for name in &names {
        if !valid_name(name) {
            return Err(FrameError::BadName);
        }
        if !seen.insert(*name) {
            return Err(FrameError::ListedTwice((*name).to_owned()));
        }
    }
    Ok(names.into_iter().map(str::to_owned).collect())
}

/// A framed body, taken apart: the manifest and the parts sent (each named in the header).
#[derive(Debug, PartialEq, Eq)]
pub struct Framed {
    pub manifest: Vec<u8>,
    pub parts: Vec<(String, Vec<u8>)>,
}

/// Reads the frame from the front of a body.
struct Reader<'a> {
    rest: &'a [u8],
}

impl<'a> Reader<'a> {
    fn take(&mut self, n: usize, what: &'static str) -> Result<&'a [u8], FrameError> {
        if self.rest.len() < n {
            return Err(FrameError::Truncated(what));
        }
        let (taken, rest) = self.rest.split_at(n);
        self.rest = rest;
        Ok(taken)
    }

    fn length(&mut self, what: &'static str) -> Result<usize, FrameError> {
        let bytes = self.take(4, what)?;
        let n = u32::from_be_bytes([bytes[0], bytes[1], bytes[2], bytes[3]]);
        usize::try_from(n).map_err(|_| FrameError::Truncated(what))
    }
}

/// Takes a framed body apart; every part sent must be named in `listed`, once.
pub fn split(body: &[u8], listed: &[String]) -> Result<Framed, FrameError> {
    let mut reader = Reader { rest: body };
    let manifest_len = reader.length("the manifest's length")?;
    if manifest_len == 0 {
        return Err(FrameError::EmptyManifest);
    }
    let manifest = reader.take(manifest_len, "the manifest")?.to_vec();
    let listed: HashSet<&str> = listed.iter().map(String::as_str).collect();
    let mut sent = HashSet::new();
    let mut parts = Vec::new();
    while !reader.rest.is_empty() {
        let name_len = usize::from(reader.take(1, "a part's name length")?[0]);
        let name = reader.take(name_len, "a part's name")?;
        let name = std::str::from_utf8(name)
            .ok()
            .filter(|n| valid_name(n))
            .ok_or(FrameError::BadName)?
            .to_owned();
        if !listed.contains(name.as_str()) {
            return Err(FrameError::NotListed(name));
        }
        if !sent.insert(name.clone()) {
            return Err(FrameError::SentTwice(name));
        }
        let part_len = reader.length("a part's length")?;
        if part_len == 0 {
            return Err(FrameError::EmptyPart(name));
        }
        let part = reader.take(part_len, "a part")?.to_vec();
        parts.push((name, part));
    }
    Ok(Framed { manifest, parts })
}

#[cfg(test)]
mod tests {
    use super::*;

    fn names(list: &[&str]) -> Vec<String> {
        list.iter().map(|s| (*s).to_owned()).collect()
    }

    fn frame(manifest: &[u8], parts: &[(&str, &[u8])]) -> Vec<u8> {
        let mut body = Vec::new();
        body.extend_from_slice(&(manifest.len() as u32).to_be_bytes());
        body.extend_from_slice(manifest);
        for (name, part) in parts {
            body.push(name.len() as u8);
            body.extend_from_slice(name.as_bytes());
            body.extend_from_slice(&(part.len() as u32).to_be_bytes());
            body.extend_from_slice(part);
        }
        body
    }

    #[test]
    fn headers_list_names_with_spaces_around_commas() {
        assert_eq!(parse_names(""), Ok(vec![]));
        assert_eq!(parse_names("  "), Ok(vec![]));
        assert_eq!(parse_names("a"), Ok(names(&["a"])));
        assert_eq!(parse_names("a , b_1,C-2"), Ok(names(&["a", "b_1", "C-2"])));
        let longest = "x".repeat(43);
        assert_eq!(parse_names(&longest), Ok(vec![longest.clone()]));
        let too_long = "x".repeat(44);
        assert_eq!(parse_names(&too_long), Err(FrameError::BadName));
        for bad in ["a,,b", "a,", ",a", "a b", "a/b", "é", "a.b"] {
            assert_eq!(parse_names(bad), Err(FrameError::BadName), "{bad}");
        }
        assert_eq!(
            parse_names("a,b,a"),
            Err(FrameError::ListedTwice("a".into()))
        );
        let all: Vec<String> = (0..64).map(|n| format!("p{n}")).collect();
        assert_eq!(parse_names(&all.join(",")).map(|v| v.len()), Ok(64));
        let over: Vec<String> = (0..65).map(|n| format!("p{n}")).collect();
        assert_eq!(parse_names(&over.join(",")), Err(FrameError::TooMany(65)));
    }

    #[test]
    fn a_framed_body_comes_apart_into_the_manifest_and_its_parts() {
        let body = frame(b"manifest", &[("a", b"one"), ("b", b"two")]);
        let framed = split(&body, &names(&["a", "b", "c"])).expect("framed");
        assert_eq!(framed.manifest, b"manifest");
        assert_eq!(
            framed.parts,
            vec![("a".into(), b"one".to_vec()), ("b".into(), b"two".to_vec())]
        );
        let alone = split(&frame(b"m", &[]), &[]).expect("the manifest alone");
        assert_eq!((alone.manifest, alone.parts), (b"m".to_vec(), vec![]));
    }

    #[test]
    fn truncated_lengths_and_bodies_are_refused() {
        let body = frame(b"manifest", &[("a", b"one")]);
        // Every cut short of the end falls inside some field, but the one right after the
        // manifest: that is a manifest sent alone.
        for end in (0..body.len()).filter(|&end| end != 4 + 8) {
            assert!(
                matches!(
                    split(&body[..end], &names(&["a"])),
                    Err(FrameError::Truncated(_))
                ),
                "cut at {end}"
            );
        }
        // A length that promises more than the body holds.
        let mut overlong = frame(b"m", &[("a", b"x")]);
        let at = overlong.len() - 5;
        overlong[at..at + 4].copy_from_slice(&u32::MAX.to_be_bytes());
        assert_eq!(
            split(&overlong, &names(&["a"])),
            Err(FrameError::Truncated("a part"))
        );
        let mut manifest_overlong = frame(b"m", &[]);
        manifest_overlong[..4].copy_from_slice(&2u32.to_be_bytes());
        assert_eq!(
            split(&manifest_overlong, &[]),
            Err(FrameError::Truncated("the manifest"))
        );
    }

    #[test]
    fn empty_parts_and_names_outside_the_header_are_refused() {
        assert_eq!(split(&frame(b"", &[]), &[]), Err(FrameError::EmptyManifest));
        assert_eq!(
            split(&frame(b"m", &[("a", b"")]), &names(&["a"])),
            Err(FrameError::EmptyPart("a".into()))
        );
        assert_eq!(
            split(&frame(b"m", &[("", b"x")]), &names(&["a"])),
            Err(FrameError::BadName)
        );
        assert_eq!(
            split(&frame(b"m", &[("a/b", b"x")]), &names(&["a"])),
            Err(FrameError::BadName)
        );
        assert_eq!(
            split(&frame(b"m", &[("z", b"x")]), &names(&["a"])),
            Err(FrameError::NotListed("z".into()))
        );
        assert_eq!(
            split(&frame(b"m", &[("a", b"x"), ("a", b"x")]), &names(&["a"])),
            Err(FrameError::SentTwice("a".into()))
        );
    }
}
