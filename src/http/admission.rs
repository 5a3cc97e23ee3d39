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
use crate::fair::{Allowance, Attempt, ClientKey, Paid};
use crate::secret::{key_matches, PresentedToken, Token};

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
    /// Keys and tokens a client may present before one is compared: spent before every
    /// comparison, given back when the key was right, shared by every route.
    pub wrong_keys: Arc<Allowance>,
    pub inflight: Arc<InFlight>,
    pub bytes: Arc<ByteBudget>,
    pub body: BodyRules,
}

/// A token the request presented (if any), paid for: given back once it proved right.
#[derive(Debug)]
pub struct Presented {
    pub token: Option<PresentedToken>,
    attempt: Option<Attempt>,
}

impl Presented {
    /// The token was right (or nothing was compared): its attempt costs nothing.
    pub fn was_right(&mut self) {
        if let Some(attempt) = self.attempt.as_mut() {
            attempt.succeeded();
        }
    }
}

impl Admission {
    /// Pays for one comparison of a key or token from `client`'s allowance of wrong keys: 429
    /// in words once it is spent, before anything is compared.
    pub fn attempt_key(&self, client: ClientKey) -> Result<Attempt, AppError> {
        self.wrong_keys.attempt(client).map_err(|wait| {
            let seconds = wait.as_secs() + u64::from(wait.subsec_nanos() > 0);
            AppError::Throttled {
                message: format!(
                    "too many wrong keys or tokens came from your address: try again in {} seconds",
                    seconds.max(1)
                ),
                retry_after: seconds.max(1),
            }
        })
    }

    /// Compares what `compare` compares once paid for; the attempt is given back when right.
    fn compare(
        &self,
        client: ClientKey,
        compare: impl FnOnce(Paid) -> bool,
    ) -> Result<bool, AppError> {
        let mut attempt = self.attempt_key(client)?;
        let right = compare(attempt.paid());
        if right {
            attempt.succeeded();
        }
        Ok(right)
    }

    /// Whether the request carries the publish key (false when the site has none).
    pub fn is_owner(&self, client: ClientKey, headers: &HeaderMap) -> Result<bool, AppError> {
        match (&self.keys.publish, Keys::given(headers, PUBLISH_KEY_HEADER)) {
            (Some(expected), Some(given)) => {
                self.compare(client, |paid| key_matches(paid, given, expected))
            }
            _ => Ok(false),
        }
    }

    /// The request may make a vault or a shared deck: the site has no key for that, or the
    /// request carries its sync key or its publish key (as `X-Sync-Key`).
    fn invited(&self, client: ClientKey, headers: &HeaderMap) -> Result<bool, AppError> {
        if self.keys.invitation_needed().is_none() {
            return Ok(true);
        }
        let Some(given) = Keys::given(headers, SYNC_KEY_HEADER) else {
            return Ok(false);
        };
        self.compare(client, |paid| {
            [&self.keys.sync, &self.keys.publish]
                .into_iter()
                .flatten()
                .any(|expected| key_matches(paid, given, expected))
        })
    }

    /// Pays for comparing the token `client` presented, if any.
    pub fn present(&self, client: ClientKey, token: Option<Token>) -> Result<Presented, AppError> {
        let Some(token) = token else {
            return Ok(Presented {
                token: None,
                attempt: None,
            });
        };
        let attempt = self.attempt_key(client)?;
        Ok(Presented {
            token: Some(token.presented(attempt.paid())),
            attempt: Some(attempt),
        })
    }
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
        let owner = admission.is_owner(client.key(), &parts.headers)?;
        if !owner {
            for action in P::ACTIONS {
                admission.limits.check(*action, client.key())?;
            }
            let allowed = match P::KEY {
                KeyRule::Open => true,
                KeyRule::Owner => admission.keys.publish.is_none(),
                KeyRule::Invitation => admission.invited(client.key(), &parts.headers)?,
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
            wrong_keys: Arc::new(Allowance::new(
                crate::http::limits::rate(limit),
                Clock::manual(),
            )),
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
        match Caller::<Editing>::admit(&a, &wrong) {
            Err(AppError::Throttled { message, .. }) => assert!(message.contains("wrong keys")),
            Err(other) => panic!("expected the wrong keys' 429, got {other:?}"),
            Ok(_) => panic!("expected the wrong keys' 429, got admitted"),
        }
        // The right key is still compared, and admitted, from another address.
        let mut elsewhere = parts(&[("x-publish-key", "owner-key")]);
        elsewhere
            .extensions
            .insert(ClientAddr("198.51.100.9".parse().expect("ip")));
        assert!(
            Caller::<Editing>::admit(&a, &elsewhere)
                .expect("owner")
                .owner
        );
    }

    #[test]
    fn presented_tokens_are_paid_for_and_right_ones_given_back() {
        let a = admission(Keys::default(), 2);
        let me = crate::fair::ClientKey::of("198.51.100.1".parse().expect("ip"));
        for _ in 0..5 {
            let mut right = a.present(me, Token::given("a-token")).expect("paid");
            assert!(right.token.is_some());
            right.was_right();
        }
        assert!(a.present(me, None).expect("nothing to pay").token.is_none());
        for _ in 0..2 {
            a.present(me, Token::given("a-guess")).expect("paid");
        }
        assert!(matches!(
            a.present(me, Token::given("a-guess")),
            Err(AppError::Throttled { .. })
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
