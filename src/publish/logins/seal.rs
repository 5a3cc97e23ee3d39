//! The sealing of sources' logins: one key in a file of its own in the data directory (never
//! in the database, so `hearth.db`, its WAL, its backups and its replica hold no password),
//! made at first need with owner-only permissions; each login sealed with ChaCha20-Poly1305
//! under it, bound to its calendar and address as associated data (a sealed login moved to
//! another calendar or address does not open), and its copies' tag a keyed hash (HMAC-SHA256)
//! of the address and the login.

use std::io::Write;
use std::path::{Path, PathBuf};

use ring::aead::{Aad, LessSafeKey, Nonce, UnboundKey, CHACHA20_POLY1305, NONCE_LEN};
use ring::hmac;
use ring::rand::{SecureRandom, SystemRandom};

use crate::calendar::config::SourceAuth;

/// The key file's name in the data directory.
pub const KEY_FILE: &str = "source-logins.key";
const KEY_LEN: usize = 32;
/// What a sealed login's associated data starts with (its format's version).
const AAD_PREFIX: &[u8] = b"hearth source login 1\0";

/// Why a login could not be sealed or opened.
#[derive(Debug, Clone, PartialEq, Eq, thiserror::Error)]
pub enum SealError {
    #[error("the key file {0} is missing: the stored logins cannot be opened without the key they were sealed with")]
    KeyMissing(PathBuf),
    #[error("the key file {0} is not a key Hearth made (it must hold 32 bytes)")]
    KeyDamaged(PathBuf),
    #[error("the key file {path} could not be read or made: {error}")]
    KeyIo { path: PathBuf, error: String },
    /// Another key, or the sealed bytes were changed or moved to another calendar or address.
    #[error("a stored login does not open with the key file {0}: it was sealed with another key, or changed")]
    WrongKey(PathBuf),
    #[error("no random numbers could be had to seal a login")]
    Random,
}

/// The key, as the two uses derived from it: sealing, and the tags of copies.
pub struct Keys {
    path: PathBuf,
    seal: LessSafeKey,
    tags: hmac::Key,
}

impl std::fmt::Debug for Keys {
    fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        f.debug_struct("Keys").field("path", &self.path).finish()
    }
}

impl Keys {
    /// The key of `data_dir`, made (owner-only) when `make` and there is none yet.
    pub fn load(data_dir: &Path, make: bool) -> Result<Keys, SealError> {
        let path = data_dir.join(KEY_FILE);
        let io = |e: std::io::Error| SealError::KeyIo {
            path: path.clone(),
            error: e.to_string(),
        };
        let raw = match std::fs::read(&path) {
            Ok(raw) => raw,
            Err(e) if e.kind() == std::io::ErrorKind::NotFound && make => {
                match make_key(&path) {
                    Ok(raw) => raw,
                    // Another thread made it first.
                    Err(e) if e.kind() == std::io::ErrorKind::AlreadyExists => {
                        std::fs::read(&path).map_err(io)?
                    }
                    Err(e) => return Err(io(e)),
                }
            }
            Err(e) if e.kind() == std::io::ErrorKind::NotFound => {
                return Err(SealError::KeyMissing(path))
            }
            Err(e) => return Err(io(e)),
        };
        if raw.len() != KEY_LEN {
            return Err(SealError::KeyDamaged(path));
        }
        let root = hmac::Key::new(hmac::HMAC_SHA256, &raw);
        let derive = |purpose: &[u8]| hmac::sign(&root, purpose);
        let seal_key = derive(b"seal logins");
        let seal = UnboundKey::new(&CHACHA20_POLY1305, &seal_key.as_ref()[..KEY_LEN])
            .map_err(|_| SealError::KeyDamaged(path.clone()))?;
        Ok(Keys {
            seal: LessSafeKey::new(seal),
            tags: hmac::Key::new(hmac::HMAC_SHA256, derive(b"copy tags").as_ref()),
            path,
        })
    }

    /// `auth` sealed for the source at `url` of calendar `calendar`: a random nonce, then the
    /// ciphertext with its tag.
    pub fn seal(&self, calendar: &str, url: &str, auth: &SourceAuth) -> Result<Vec<u8>, SealError> {
        let mut nonce = [0u8; NONCE_LEN];
        SystemRandom::new()
            .fill(&mut nonce)
            .map_err(|_| SealError::Random)?;
        let mut text = encode(auth);
        self.seal
            .seal_in_place_append_tag(
                Nonce::assume_unique_for_key(nonce),
                Aad::from(associated(calendar, url)),
                &mut text,
            )
            .map_err(|_| SealError::Random)?;
        let mut sealed = nonce.to_vec();
        sealed.extend_from_slice(&text);
        Ok(sealed)
    }

    /// The login sealed for the source at `url` of calendar `calendar`.
    pub fn open(&self, calendar: &str, url: &str, sealed: &[u8]) -> Result<SourceAuth, SealError> {
        let wrong = || SealError::WrongKey(self.path.clone());
        if sealed.len() < NONCE_LEN {
            return Err(wrong());
        }
        let (nonce, text) = sealed.split_at(NONCE_LEN);
        let nonce = Nonce::try_assume_unique_for_key(nonce).map_err(|_| wrong())?;
        let mut text = text.to_vec();
        let plain = self
            .seal
            .open_in_place(nonce, Aad::from(associated(calendar, url)), &mut text)
            .map_err(|_| wrong())?;
        decode(plain).ok_or_else(wrong)
    }

    /// The tag the copies of `url` fetched with `auth` are kept under: whoever has another
    /// login (or none) for the address never reads them.
    pub fn tag(&self, url: &str, auth: &SourceAuth) -> String {
        let mut message = url.as_bytes().to_vec();
        message.push(0);
        message.extend_from_slice(&encode(auth));
        let signed = hmac::sign(&self.tags, &message);
        signed.as_ref()[..16]
            .iter()
            .map(|b| format!("{b:02x}"))
            .collect()
    }
}

fn make_key(path: &Path) -> std::io::Result<Vec<u8>> {
    let mut raw = vec![0u8; KEY_LEN];
    SystemRandom::new()
        .fill(&mut raw)
        .map_err(|_| std::io::Error::other("no random numbers"))?;
    let mut options = std::fs::OpenOptions::new();
    options.write(true).create_new(true);
    #[cfg(unix)]
    {
        use std::os::unix::fs::OpenOptionsExt;
        options.mode(0o600);
    }
    let mut file = options.open(path)?;
    file.write_all(&raw)?;
    file.sync_all()?;
    Ok(raw)
}

fn associated(calendar: &str, url: &str) -> Vec<u8> {
    let mut aad = AAD_PREFIX.to_vec();
    aad.extend_from_slice(calendar.as_bytes());
    aad.push(0);
    aad.extend_from_slice(url.as_bytes());
    aad
}

/// `b` + username + NUL + password, or `t` + token (a login holds no control character).
fn encode(auth: &SourceAuth) -> Vec<u8> {
    match auth {
        SourceAuth::Basic { username, password } => {
            let mut out = vec![b'b'];
            out.extend_from_slice(username.as_bytes());
            out.push(0);
            out.extend_from_slice(password.as_bytes());
            out
        }
        SourceAuth::Bearer { token } => {
            let mut out = vec![b't'];
            out.extend_from_slice(token.as_bytes());
            out
        }
        SourceAuth::Set => vec![b's'],
    }
}

fn decode(bytes: &[u8]) -> Option<SourceAuth> {
    let (kind, rest) = bytes.split_first()?;
    let text = std::str::from_utf8(rest).ok()?;
    match kind {
        b'b' => {
            let (username, password) = text.split_once('\0')?;
            Some(SourceAuth::Basic {
                username: username.to_owned(),
                password: password.to_owned(),
            })
        }
        b't' => Some(SourceAuth::Bearer {
            token: text.to_owned(),
        }),
        _ => None,
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    fn basic() -> SourceAuth {
        SourceAuth::Basic {
            username: "ann".into(),
            password: "correct horse".into(),
        }
    }

    #[test]
    fn a_sealed_login_opens_only_for_its_calendar_and_address_and_holds_no_clear_text() {
        let dir = tempfile::tempdir().expect("tempdir");
        let keys = Keys::load(dir.path(), true).expect("key made");
        let sealed = keys
            .seal("work", "https://a.example/c.ics", &basic())
            .expect("seals");
        assert!(!sealed.windows(5).any(|w| w == b"horse"));
        let opened = keys.open("work", "https://a.example/c.ics", &sealed);
        assert_eq!(opened, Ok(basic()));
        assert!(keys
            .open("home", "https://a.example/c.ics", &sealed)
            .is_err());
        assert!(keys
            .open("work", "https://b.example/c.ics", &sealed)
            .is_err());
        let token = SourceAuth::Bearer {
            token: "t0k".into(),
        };
        let sealed = keys.seal("work", "u", &token).expect("seals");
        assert_eq!(keys.open("work", "u", &sealed), Ok(token));
    }

    #[cfg(unix)]
    #[test]
    fn the_key_is_made_owner_only_at_first_need_and_another_key_opens_nothing() {
        use std::os::unix::fs::PermissionsExt;
        let dir = tempfile::tempdir().expect("tempdir");
        assert!(matches!(
            Keys::load(dir.path(), false),
            Err(SealError::KeyMissing(_))
        ));
        let keys = Keys::load(dir.path(), true).expect("key made");
        let mode = std::fs::metadata(dir.path().join(KEY_FILE))
            .expect("key file")
            .permissions()
            .mode();
        assert_eq!(mode & 0o777, 0o600);
        let sealed = keys.seal("c", "u", &basic()).expect("seals");
        let again = Keys::load(dir.path(), false).expect("key read");
        assert_eq!(again.tag("u", &basic()), keys.tag("u", &basic()));
        assert_ne!(keys.tag("u", &basic()), keys.tag("v", &basic()));
        std::fs::write(dir.path().join(KEY_FILE), [7u8; KEY_LEN]).expect("writes");
        let other = Keys::load(dir.path(), false).expect("key read");
        assert!(matches!(
            other.open("c", "u", &sealed),
            Err(SealError::WrongKey(_))
        ));
    }
}
