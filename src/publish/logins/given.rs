//! A publish's logins: each source's login as given (`{"username","password"}` or
//! `{"token"}`), or `"set"`, the login stored for it before, kept only by the holder of the
//! calendar's edit token and only for the same origin (a changed host must be given the login
//! again: a saved login is sent only to the site it was given for).

use super::super::calendars::{self, Access};
use super::super::fetch::Login;
use super::super::publishing::PublishError;
use super::super::validate::{Invalid, PublishInput};
use super::super::Publisher;
use super::{LoginError, Stored};
use crate::calendar::config::SourceAuth;
use crate::secret::PresentedToken;
use crate::store::Db;

impl Publisher {
    /// The logins of `input`'s sources, opened (and put on its sources for their fetches), by
    /// address. `"set"` opens the stored login only with the calendar's edit token.
    pub(in crate::publish) async fn logins_of(
        &self,
        db: &Db,
        input: &mut PublishInput,
        token: Option<&PresentedToken>,
    ) -> Result<Vec<(String, Login)>, PublishError> {
        let keeps = input
            .config
            .sources
            .iter()
            .any(|s| s.auth == Some(SourceAuth::Set));
        let stored = if keeps {
            match calendars::access(db, input.id.clone(), token.cloned(), false).await? {
                Access::Granted { .. } => {
                    self.logins
                        .stored(db, &input.id)
                        .await
                        .map_err(|e| match e {
                            LoginError::Store(e) => PublishError::Store(e),
                            LoginError::Seal(e) => PublishError::Sealing(e),
                        })?
                }
                Access::Forbidden => return Err(PublishError::Forbidden(input.id.clone())),
                Access::NotFound => Vec::new(),
            }
        } else {
            Vec::new()
        };
        let mut logins = Vec::new();
        for (i, source) in input.config.sources.iter().enumerate() {
            let Some(given) = &source.auth else { continue };
            let Some(feed) = input.sources.get_mut(i) else {
                continue;
            };
            let auth = match given {
                SourceAuth::Set => kept(&stored, &feed.url).ok_or_else(|| {
                    Invalid::new(
                        format!("sources[{i}].auth"),
                        no_kept_login(&stored, &feed.url),
                    )
                })?,
                given => given.clone(),
            };
            let login = self
                .logins
                .login(feed.url.as_str(), auth, source.plain_http)
                .map_err(PublishError::Sealing)?;
            feed.read.login = Some(login.clone());
            logins.push((feed.url.to_string(), login));
        }
        Ok(logins)
    }
}

/// The stored login for `url`: its own, else the one stored for another address of the same
/// origin (scheme, host and port) when there is exactly one.
fn kept(stored: &[Stored], url: &reqwest::Url) -> Option<SourceAuth> {
    if let Some(same) = stored.iter().find(|s| s.url == url.as_str()) {
        return Some(same.auth.clone());
    }
    let mut same_origin = stored
        .iter()
        .filter(|s| reqwest::Url::parse(&s.url).is_ok_and(|at| at.origin() == url.origin()));
    match (same_origin.next(), same_origin.next()) {
        (Some(one), None) => Some(one.auth.clone()),
        _ => None,
    }
}

fn no_kept_login(stored: &[Stored], url: &reqwest::Url) -> String {
    if stored.is_empty() {
        "no login is saved for this source: give its username and password, or its token".into()
    } else {
        format!(
            "the address's site changed (now {}): a saved login is sent only to the site it was \
             given for, so give the login again",
            url.host_str().unwrap_or_default()
        )
    }
}
