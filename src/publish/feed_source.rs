//! One feed of a merged calendar as the server reads it (its parsed address and its prefix):
//! what the publish request's check, a served calendar and the merge all name.

/// One source: its address and prefix.
#[derive(Debug, Clone)]
pub struct SourceFeed {
    pub url: reqwest::Url,
    pub prefix: Option<String>,
}
