//! One message sent: a `POST` of its text to the owner's address with the headers ntfy reads,
//! within a time limit, following redirects only within the address's own origin. A failure is
//! said in words that never name the address (it may hold a token): reqwest's own errors do,
//! so they are never shown.

use std::time::Duration;

use reqwest::{header, redirect, StatusCode};

use super::message::Message;
use crate::config::NotifyUrl;

/// Redirects followed within the address's origin.
const MAX_REDIRECTS: usize = 3;

/// Why a message was not delivered, in words without the address.
#[derive(Debug, Clone, PartialEq, Eq, thiserror::Error)]
pub enum DeliveryError {
    #[error("the notification service answered {0}")]
    Status(u16),
    #[error("the notification service did not answer within {0} s")]
    Timeout(u64),
    #[error("the notification service could not be reached")]
    Connect,
    #[error("the notification service redirected to another site, which is not followed")]
    Redirect,
    #[error("the request to the notification service failed")]
    Other,
    #[error("the notification client could not start")]
    Client,
}

pub struct Sender {
    client: reqwest::Client,
    url: NotifyUrl,
    timeout: Duration,
    /// Who the messages say they are from: the public address's host, else "this server".
    site: String,
}

impl Sender {
    pub fn new(url: NotifyUrl, timeout: Duration, site: String) -> Result<Sender, DeliveryError> {
        crate::publish::fetch::install_crypto_provider();
        let same_origin = redirect::Policy::custom(|attempt| {
            let first = attempt.previous().first().map(reqwest::Url::origin);
            if attempt.previous().len() > MAX_REDIRECTS
                || first.is_some_and(|o| o != attempt.url().origin())
            {
                return attempt.stop();
            }
            attempt.follow()
        });
        let client = reqwest::Client::builder()
            .user_agent(concat!("Hearth/", env!("CARGO_PKG_VERSION")))
            .connect_timeout(timeout)
            .timeout(timeout)
            .redirect(same_origin)
            .no_proxy()
            .build()
            .map_err(|_| DeliveryError::Client)?;
        Ok(Sender {
            client,
            url,
            timeout,
            site,
        })
    }

    pub fn site(&self) -> &str {
        &self.site
    }

    /// One attempt.
    pub async fn send(&self, message: &Message) -> Result<(), DeliveryError> {
        let answer = self
            .client
            .post(self.url.expose())
            .header(header::CONTENT_TYPE, "text/plain; charset=utf-8")
            .header("Title", message.title(&self.site))
            .header("Priority", message.priority())
            .header("Tags", message.tags())
            .body(message.body.clone())
            .send()
            .await
            .map_err(|e| self.said(&e))?;
        let status = answer.status();
        if status.is_redirection() {
            return Err(DeliveryError::Redirect);
        }
        if !status.is_success() {
            return Err(DeliveryError::Status(status.as_u16()));
        }
        Ok(())
    }

    /// reqwest's error in words of our own (its Display names the address).
    fn said(&self, e: &reqwest::Error) -> DeliveryError {
        if e.is_timeout() {
            DeliveryError::Timeout(self.timeout.as_secs().max(1))
        } else if e.is_connect() {
            DeliveryError::Connect
        } else if e.is_redirect() {
            DeliveryError::Redirect
        } else if let Some(status) = e.status().filter(|s| *s != StatusCode::OK) {
            DeliveryError::Status(status.as_u16())
        } else {
            DeliveryError::Other
        }
    }
}
