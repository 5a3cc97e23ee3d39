//! A source's login on a request to it: HTTP Basic or a Bearer token, the header marked
//! sensitive (kept out of reqwest's logs). reqwest drops it on a redirect to another origin
//! (scheme, host or port); `fetch` decides where a login may be sent at all.

use reqwest::RequestBuilder;

use crate::calendar::config::SourceAuth;

/// `request` carrying `login`, when there is one to send. `SourceAuth::Set` (a stored login not
/// opened) sends nothing: whoever fetches opens the stored login first.
pub fn with_login(request: RequestBuilder, login: Option<&SourceAuth>) -> RequestBuilder {
    match login {
        Some(SourceAuth::Basic { username, password }) => {
            request.basic_auth(username, Some(password))
        }
        Some(SourceAuth::Bearer { token }) => request.bearer_auth(token),
        Some(SourceAuth::Set) | None => request,
    }
}
