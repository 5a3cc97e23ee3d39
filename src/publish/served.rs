//! A published calendar made ready to serve: its stored record with the config compiled (once
//! per revision, not per request), its feed address parsed and its file name made, once.

use std::sync::Arc;

use super::calendars::Published;
use super::feed_source::{Reading, SourceFeed};
use super::fetch::{self, FetchError, Login};
use super::rendered::content_disposition;
use crate::calendar::{CompiledConfig, MappedField};

/// A published calendar with its config compiled (once per revision, not per request).
#[derive(Debug)]
pub struct HostedCalendar {
    pub record: Published,
    pub config: Arc<CompiledConfig>,
    /// The feed address, parsed once (a merged calendar's first source).
    pub url: reqwest::Url,
    /// A merged calendar's feeds, parsed once; empty for a calendar of one feed.
    pub sources: Vec<SourceFeed>,
    /// The `Content-Disposition` of its hosted feed, made once.
    pub disposition: String,
}

impl HostedCalendar {
    /// `logins`: its sources' logins, opened, by address.
    pub fn new(
        record: Published,
        config: Arc<CompiledConfig>,
        logins: &[(String, Login)],
    ) -> Result<Self, FetchError> {
        let url = fetch::normalize_url(&record.url)?;
        let mut sources = Vec::with_capacity(record.config.sources.len());
        for source in &record.config.sources {
            let url = fetch::normalize_url(source.url.as_deref().unwrap_or_default())?;
            let login = logins
                .iter()
                .find(|(at, _)| at == url.as_str())
                .map(|(_, login)| login.clone());
            sources.push(SourceFeed {
                url,
                prefix: source.prefix.clone(),
                read: Reading {
                    login,
                    ..Reading::of(source.kind, record.config.window)
                },
            });
        }
        let disposition = content_disposition(&record.name);
        Ok(HostedCalendar {
            record,
            config,
            url,
            sources,
            disposition,
        })
    }

    /// Memory it holds, for the cache budget.
    pub fn size(&self) -> usize {
        let m = &self.record.config.mapping;
        let templates: usize = MappedField::ALL.iter().map(|f| m.get(*f).len()).sum();
        self.config.memory_usage()
            + templates
            + self.record.id.len()
            + self.record.name.len()
            + self.record.url.len()
            + self
                .sources
                .iter()
                .map(|s| s.url.as_str().len() * 2 + s.prefix.as_ref().map_or(0, String::len))
                .sum::<usize>()
            + 512
    }
}
