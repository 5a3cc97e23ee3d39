use chrono::Local;

/// A wrapper around `chrono_tz::Tz` that is able to represent `Local` timezone also.
///
/// # Usage
///
/// ```
/// use rrule::Tz;
///
/// let utc = Tz::UTC;
/// let local = Tz::LOCAL;
/// let berlin = Tz::Europe__Berlin;
/// // From `chrono_tz::Tz`
/// let berlin: Tz = chrono_tz::Tz::Europe__Berlin.into();
/// ```
#[derive(Clone, Copy)]
pub enum Tz {
    /// Local timezone
    Local(Local),
    /// Timezone represented by `chrono_tz::Tz`
    Tz(chrono_tz::Tz),
}

impl Tz {
    /// Name of timezone
    #[must_use]
    pub fn name(&self) -> &str {
        match self {
            Self::Local(_) => "Local",
            Self::Tz(tz) => tz.name(),
        }
    }

    /// Check if timezone is the Local timezone
    #[must_use]
    pub fn is_local(&self) -> bool {
        match self {
            Self::Local(_) => true,
            Self::Tz(_) => false,
        }
    }

    /// Local timezone
    #[allow(non_upper_case_globals)]
    pub const LOCAL: Self = Self::Local(Local);

    // Hearth's copy: of rrule's constant for every chrono-tz zone, only `UTC`. Hearth builds
    // chrono-tz for UTC alone (CHRONO_TZ_TIMEZONE_FILTER in .cargo/config.toml), so the other
    // zones do not exist; its engine expands every rule in UTC (see vendor/rrule/HEARTH.md).
    /// Coordinated Universal Time
    #[allow(non_upper_case_globals)]
    pub const UTC: Self = Self::Tz(chrono_tz::UTC);
}
