//! A feed address as a visitor types it, made one the fetcher may follow: trimmed, `webcal:` and
//! `webcals:` turned into `https:`, only http and https, a host, and a bounded length.

use reqwest::Url;

use super::errors::FetchError;
use super::MAX_URL_LEN;

/// Normalises a user-supplied feed address: trims it, turns webcal: and webcals: (Apple's
/// spelling) into https:, and accepts only http and https.
pub fn normalize_url(raw: &str) -> Result<Url, FetchError> {
    let trimmed = raw.trim();
    if trimmed.is_empty() {
        return Err(FetchError::EmptyUrl);
    }
    if trimmed.len() > MAX_URL_LEN {
        return Err(FetchError::UrlTooLong);
    }
    let rewritten = match trimmed.split_once(':') {
        Some((scheme, rest))
            if scheme.eq_ignore_ascii_case("webcal") || scheme.eq_ignore_ascii_case("webcals") =>
        {
            format!("https:{rest}")
        }
        _ => trimmed.to_owned(),
    };
    let url = Url::parse(&rewritten).map_err(|_| FetchError::InvalidUrl(trimmed.to_owned()))?;
    match url.scheme() {
        "http" | "https" => {}
        other => return Err(FetchError::UnsupportedScheme(other.to_owned())),
    }
    if url.host_str().is_none_or(str::is_empty) {
        return Err(FetchError::InvalidUrl(trimmed.to_owned()));
    }
    Ok(url)
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn webcal_becomes_https_and_other_schemes_are_refused() {
        assert_eq!(
            normalize_url(" webcal://example.org/a.ics ")
                .expect("valid")
                .as_str(),
            "https://example.org/a.ics"
        );
        assert_eq!(
            normalize_url("WEBCAL://example.org/a.ics")
                .expect("valid")
                .scheme(),
            "https"
        );
        assert!(matches!(
            normalize_url("file:///etc/passwd"),
            Err(FetchError::UnsupportedScheme(s)) if s == "file"
        ));
        assert!(matches!(
            normalize_url("ftp://example.org/x"),
            Err(FetchError::UnsupportedScheme(_))
        ));
        assert_eq!(
            normalize_url("webcals://example.org/a.ics")
                .expect("valid")
                .as_str(),
            "https://example.org/a.ics"
        );
        assert_eq!(
            normalize_url("WebCalS://example.org/a.ics")
                .expect("valid")
                .scheme(),
            "https"
        );
        assert!(matches!(
            normalize_url("webcalx://example.org/a.ics"),
            Err(FetchError::UnsupportedScheme(_))
        ));
        assert_eq!(normalize_url("  "), Err(FetchError::EmptyUrl));
        assert!(matches!(
            normalize_url("not a url"),
            Err(FetchError::InvalidUrl(_))
        ));
    }
}
