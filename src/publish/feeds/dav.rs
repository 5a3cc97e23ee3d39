//! A WebDAV request made for a visitor outside a source's fetch (the editor's discovery of an
//! account's calendars), within the same budgets as a feed's fetch: the visitor's and the
//! host's allowances of fetches upstream (the site's owner spends none), one of the host's few
//! connections, and the visitor's share of the bytes in flight for the answer.

use super::upstream;
use super::{FeedError, Feeds};
use crate::fair::Holder;
use crate::http::client::ClientKey;
use crate::publish::fetch::{DavAnswer, DavRequest, FetchError};
use crate::publish::workers::WorkError;

impl Feeds {
    /// Sends `request` for `client` (`owner`: the site's owner asked), its answer at most the
    /// feed size limit.
    pub async fn dav(
        &self,
        request: DavRequest<'_>,
        client: ClientKey,
        owner: bool,
    ) -> Result<DavAnswer, FeedError> {
        let url = request.url.clone();
        let connection = self
            .upstream
            .admit((!owner).then_some(client), &url, &self.fetcher)
            .await
            .map_err(|refused| match refused {
                upstream::Refused::Throttled(t) => FeedError::Throttled(t),
                upstream::Refused::Fetch(e) => FeedError::Fetch(e),
            })?;
        let reservation = self
            .bytes
            .reserve(Holder::Client(client), 0)
            .map_err(|_| WorkError::Busy)?;
        let max = self.fetcher.max_bytes();
        let answer = tokio::select! {
            answer = self.fetcher.dav(request, max, Some(reservation)) => answer,
            () = connection.taken() => {
                let host = url.host_str().unwrap_or_default().to_owned();
                return Err(FeedError::Throttled(upstream::busy(host)));
            }
        };
        match answer {
            Ok(answer) => Ok(answer),
            Err(FetchError::InFlight) => Err(FeedError::Busy(WorkError::Busy)),
            Err(e) => Err(e.into()),
        }
    }
}
