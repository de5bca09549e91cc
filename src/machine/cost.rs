//! Money the agents report spending. Held as whole micro-dollars so sums are
//! exact and the state stays `Eq` (floats are neither); written as dollars.

use std::fmt;
use std::iter::Sum;
use std::ops::Add;

use serde::Deserialize;
use serde::Deserializer;
use serde::Serialize;
use serde::Serializer;

/// An amount in US dollars, to the micro-dollar.
#[derive(Debug, Clone, Copy, Default, PartialEq, Eq, PartialOrd, Ord, Hash)]
pub struct Usd(u64);

impl Usd {
    pub const ZERO: Usd = Usd(0);

    /// From a reported figure; negative, NaN and infinite figures are not
    /// money and read as `None`.
    pub fn from_dollars(d: f64) -> Option<Usd> {
        (d.is_finite() && d >= 0.0).then(|| Usd((d * 1_000_000.0).round() as u64))
    }

    pub const fn from_micros(micros: u64) -> Usd {
        Usd(micros)
    }

    pub fn dollars(self) -> f64 {
        self.0 as f64 / 1_000_000.0
    }

    pub fn micros(self) -> u64 {
        self.0
    }

    pub fn is_zero(&self) -> bool {
        self.0 == 0
    }

    /// The `Supervisor-Cost` trailer's value: dollars with six decimals,
    /// read back exactly by [`Usd::parse`].
    pub fn exact(self) -> String {
        format!("{}.{:06}", self.0 / 1_000_000, self.0 % 1_000_000)
    }

    /// Read a dollar figure (`0.083422`, `$1.50`) exactly.
    pub fn parse(s: &str) -> Option<Usd> {
        let s = s.trim().trim_start_matches('$');
        let (whole, frac) = s.split_once('.').unwrap_or((s, ""));
        if whole.is_empty() && frac.is_empty() {
            return None;
        }
        let whole: u64 = if whole.is_empty() {
            0
        } else {
            whole.parse().ok()?
        };
        if !frac.chars().all(|c| c.is_ascii_digit()) {
            return None;
        }
        let mut digits: String = frac.chars().take(6).collect();
        while digits.len() < 6 {
            digits.push('0');
        }
        let frac: u64 = digits.parse().ok()?;
        whole
            .checked_mul(1_000_000)
            .and_then(|w| w.checked_add(frac))
            .map(Usd)
    }
}

impl fmt::Display for Usd {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        // Cents, and up to two more decimals for the small amounts a
        // single dispatch often costs ($0.0834).
        let mut s = format!("{:.4}", self.dollars());
        while s.ends_with('0') && s.len() - s.find('.').unwrap_or(s.len()) > 3 {
            s.pop();
        }
        if self.0 >= 1_000_000 {
            s = format!("{:.2}", self.dollars());
        }
        write!(f, "${s}")
    }
}

impl Add for Usd {
    type Output = Usd;
    fn add(self, o: Usd) -> Usd {
        Usd(self.0.saturating_add(o.0))
    }
}

impl Sum for Usd {
    fn sum<I: Iterator<Item = Usd>>(iter: I) -> Usd {
        iter.fold(Usd::ZERO, Add::add)
    }
}

/// Written as a dollar figure (`cost_usd = 0.0123`) in `state.toml` and JSON.
impl Serialize for Usd {
    fn serialize<S: Serializer>(&self, s: S) -> Result<S::Ok, S::Error> {
        s.serialize_f64(self.dollars())
    }
}

impl<'de> Deserialize<'de> for Usd {
    fn deserialize<D: Deserializer<'de>>(d: D) -> Result<Usd, D::Error> {
        let v = f64::deserialize(d)?;
        Usd::from_dollars(v)
            .ok_or_else(|| serde::de::Error::custom(format!("`{v}` is not an amount of dollars")))
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn exact_round_trip_and_display() {
        let c = Usd::from_dollars(0.123_456_7).expect("money");
        assert_eq!(c.exact(), "0.123457");
        assert_eq!(Usd::parse(&c.exact()), Some(c));
        assert_eq!(Usd::parse("$1.5"), Some(Usd(1_500_000)));
        assert_eq!(Usd::parse("abc"), None);
        assert_eq!(c.to_string(), "$0.1235");
        assert_eq!(Usd(2_500_000).to_string(), "$2.50");
        assert_eq!(Usd(520_000).to_string(), "$0.52");
        assert_eq!(Usd(83_400).to_string(), "$0.0834");
        assert_eq!(Usd(60_000).to_string(), "$0.06");
        assert_eq!(Usd::ZERO.to_string(), "$0.00");
        assert_eq!(Usd::from_dollars(-1.0), None);
        let sum: Usd = [Usd(1), Usd(2)].into_iter().sum();
        assert_eq!(sum, Usd(3));
    }
}
