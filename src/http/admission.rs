//! Admission at the edge: who is calling (the owner, by the publish key; a learner invited by
//! the sync key; anyone), and whether they may, decided by one extractor before any body is
//! read, the way a handler states in one line: `caller: Caller<Publishing>`. The owner is never
//! counted; anyone else spends the policy's allowances first (so wrong keys cannot be guessed
//! quickly), then must show the key the policy needs when the site has one.

use std::marker::PhantomData;
use std::sync::Arc;

use axum::extract::{FromRef, FromRequestParts};
use axum::http::request::Parts;
use axum::http::HeaderMap;

use super::body::BodyRules;
use super::budget::ByteBudget;
use super::client::{ClientAddr, TrustedProxies};
use super::error::AppError;
use super::inflight::InFlight;
use super::limits::{Action, RateLimiters};

/// The site's keys (`--publish-key`, `--sync-key`).
#[derive(Debug, Clone, Default)]
pub struct Keys {
    pub publish: Option<String>,
    pub sync: Option<String>,
}

/// The header that carries the publish key, and the one that carries a sync invitation key.
pub const PUBLISH_KEY_HEADER: &str = "x-publish-key";
pub const SYNC_KEY_HEADER: &str = "x-sync-key";

impl Keys {
    fn given<'a>(headers: &'a HeaderMap, name: &str) -> Option<&'a str> {
        headers
            .get(name)
            .and_then(|v| v.to_str().ok())
            .map(str::trim)
            .filter(|k| !k.is_empty())
    }

    /// The request carries the publish key (false when the site has none).
    pub fn is_owner(&self, headers: &HeaderMap) -> bool {
        match (&self.publish, Keys::given(headers, PUBLISH_KEY_HEADER)) {
            (Some(expected), Some(given)) => crate::secret::same(given, expected),
            _ => false,
        }
    }

    /// The request may make a vault or a shared deck: the site has no key for that, or the
    /// request carries its sync key or its publish key (as `X-Sync-Key`).
    fn invited(&self, headers: &HeaderMap) -> bool {
        let Some(given) = Keys::given(headers, SYNC_KEY_HEADER) else {
            return self.invitation_needed().is_none();
        };
        [&self.sync, &self.publish]
            .into_iter()
            .flatten()
            .any(|expected| crate::secret::same(given, expected))
    }

    /// The key that making vaults needs: the sync key, else the publish key, else none.
    pub fn invitation_needed(&self) -> Option<&str> {
        self.sync.as_deref().or(self.publish.as_deref())
    }
}

/// Which key a site that has one asks of a caller.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub enum KeyRule {
    /// None: anyone may (reading a feed's address, writing with a blob's own token).
    Open,
    /// The publish key, when the site has one.
    Owner,
    /// The sync key or the publish key, when the site has either.
    Invitation,
}

/// What a route admits: stated once per handler as the type parameter of [`Caller`].
pub trait Policy: Send + Sync + 'static {
    /// Allowances a caller who is not the owner spends, in order.
    const ACTIONS: &'static [Action];
    const KEY: KeyRule;
    /// The 401's words when the key is missing or wrong.
    const NEEDS_KEY: &'static str = "this needs the site's key";
}

/// Everything the edge needs to admit a request, shared by every feature.
pub struct Admission {
    pub proxies: Arc<TrustedProxies>,
    pub keys: Keys,
    pub limits: RateLimiters,
    pub inflight: Arc<InFlight>,
    pub bytes: Arc<ByteBudget>,
    pub body: BodyRules,
}

/// An admitted caller.
#[derive(Debug, Clone, Copy)]
pub struct Caller<P> {
    pub client: ClientAddr,
    /// Presented the publish key.
    pub owner: bool,
    policy: PhantomData<fn() -> P>,
}

impl<P: Policy> Caller<P> {
    /// Admits the request described by `parts` under policy `P`.
    pub fn admit(admission: &Admission, parts: &Parts) -> Result<Caller<P>, AppError> {
        let client = ClientAddr::resolve(&admission.proxies, parts);
        let owner = admission.keys.is_owner(&parts.headers);
        if !owner {
            for action in P::ACTIONS {
                admission.limits.check(*action, client.key())?;
            }
            let allowed = match P::KEY {
                KeyRule::Open => true,
                KeyRule::Owner => admission.keys.publish.is_none(),
                KeyRule::Invitation => admission.keys.invited(&parts.headers),
            };
            if !allowed {
                return Err(AppError::Unauthorized(P::NEEDS_KEY.to_owned()));
            }
        }
        Ok(Caller {
            client,
            owner,
            policy: PhantomData,
        })
    }
}

impl<S, P> FromRequestParts<S> for Caller<P>
where
    Arc<Admission>: FromRef<S>,
    S: Send + Sync,
    P: Policy,
{
    type Rejection = AppError;

    async fn from_request_parts(parts: &mut Parts, state: &S) -> Result<Self, Self::Rejection> {
        Caller::admit(&Arc::<Admission>::from_ref(state), parts)
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::clock::Clock;
    use crate::http::inflight::InFlightLimits;
    use crate::http::limits::{RateLimit, RateLimits};
    use axum::http::{HeaderValue, Request};
    use std::time::Duration;

    struct Editing;
    impl Policy for Editing {
        const ACTIONS: &'static [Action] = &[Action::Feed];
        const KEY: KeyRule = KeyRule::Owner;
        const NEEDS_KEY: &'static str = "the editor needs the publish key";
    }

    struct Inviting;
    impl Policy for Inviting {
        const ACTIONS: &'static [Action] = &[];
        const KEY: KeyRule = KeyRule::Invitation;
    }

    fn admission(keys: Keys, burst: u32) -> Admission {
        let limit = RateLimit {
            burst,
            every: Duration::from_secs(60),
        };
        Admission {
            proxies: Arc::new(TrustedProxies::default()),
            keys,
            limits: RateLimiters::new(&RateLimits::all(limit), &Clock::manual()),
            inflight: InFlight::new(InFlightLimits { per_client: 4 }),
            bytes: ByteBudget::split(1 << 20, 1 << 18),
            body: BodyRules::default(),
        }
    }

    fn parts(headers: &[(&'static str, &str)]) -> Parts {
        let mut request = Request::builder().uri("/").body(()).expect("request");
        for (name, value) in headers {
            request
                .headers_mut()
                .insert(*name, HeaderValue::from_str(value).expect("header"));
        }
        request.into_parts().0
    }

    #[test]
    fn the_owner_is_never_counted_and_others_spend_before_the_key_is_checked() {
        let a = admission(
            Keys {
                publish: Some("owner-key".into()),
                sync: None,
            },
            1,
        );
        for _ in 0..3 {
            let caller = Caller::<Editing>::admit(&a, &parts(&[("x-publish-key", "owner-key")]))
                .expect("owner");
            assert!(caller.owner);
        }
        let wrong = parts(&[("x-publish-key", "guess")]);
        assert!(matches!(
            Caller::<Editing>::admit(&a, &wrong),
            Err(AppError::Unauthorized(_))
        ));
        // The wrong guess spent the allowance: the next one is throttled before any check.
        assert!(matches!(
            Caller::<Editing>::admit(&a, &wrong),
            Err(AppError::TooManyRequests { .. })
        ));
    }

    #[test]
    fn an_open_site_admits_editors_without_a_key() {
        let a = admission(Keys::default(), 10);
        let caller = Caller::<Editing>::admit(&a, &parts(&[])).expect("open");
        assert!(!caller.owner);
    }

    #[test]
    fn the_sync_key_invites_without_being_the_publish_key() {
        let a = admission(
            Keys {
                publish: Some("owner-key".into()),
                sync: Some("learners".into()),
            },
            10,
        );
        assert!(Caller::<Inviting>::admit(&a, &parts(&[("x-sync-key", "learners")])).is_ok());
        assert!(Caller::<Inviting>::admit(&a, &parts(&[("x-sync-key", "owner-key")])).is_ok());
        assert!(Caller::<Inviting>::admit(&a, &parts(&[])).is_err());
        // The sync key is not the publish key.
        assert!(Caller::<Editing>::admit(&a, &parts(&[("x-publish-key", "learners")])).is_err());
        // Without a sync key, the publish key invites; without either, anyone is invited.
        let a = admission(
            Keys {
                publish: Some("owner-key".into()),
                sync: None,
            },
            10,
        );
        assert!(Caller::<Inviting>::admit(&a, &parts(&[])).is_err());
        assert!(Caller::<Inviting>::admit(&a, &parts(&[("x-sync-key", "owner-key")])).is_ok());
        assert!(Caller::<Inviting>::admit(&admission(Keys::default(), 10), &parts(&[])).is_ok());
    }
}
