//! Neumaier's compensated summation.

/// A running sum with Neumaier's compensation (Neumaier 1974, an improved
/// Kahan–Babuška sum): the rounding error of every addition is kept in a
/// second term, so long runs of small updates to a large sum do not drift.
#[derive(Debug, Default, Clone, Copy, PartialEq)]
pub struct CompensatedSum {
    sum: f64,
    compensation: f64,
}

impl CompensatedSum {
    /// Add `x`.
    pub fn add(&mut self, x: f64) {
        let t = self.sum + x;
        if self.sum.abs() >= x.abs() {
            self.compensation += (self.sum - t) + x;
        } else {
            self.compensation += (x - t) + self.sum;
        }
        self.sum = t;
    }

    /// The compensated total.
    pub fn value(self) -> f64 {
        self.sum + self.compensation
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn keeps_what_plain_summation_loses() {
        // 1 + 1e100 + 1 − 1e100: plain f64 addition gives 0, the exact sum is 2.
        let xs = [1.0, 1e100, 1.0, -1e100];
        assert_eq!(xs.iter().sum::<f64>(), 0.0);
        let mut s = CompensatedSum::default();
        xs.iter().for_each(|&x| s.add(x));
        assert_eq!(s.value(), 2.0);
    }
}
