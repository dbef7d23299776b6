//! The library's named choices ([`Choice`]) as clap value enums: the
//! possible values, their order and their `--help` lines come from the
//! library, so the command line and the scenario files accept the same
//! names.

use clap::ValueEnum;
use clap::builder::PossibleValue;

use crate::core::choice::Choice;

/// `impl ValueEnum` from the type's [`Choice`] impl.
macro_rules! value_enum_from_choice {
    ($($ty:ty),* $(,)?) => {$(
        impl ValueEnum for $ty {
            fn value_variants<'a>() -> &'a [Self] {
                <$ty as Choice>::ALL
            }

            fn to_possible_value(&self) -> Option<PossibleValue> {
                Some(PossibleValue::new(self.name()).help(self.help()))
            }
        }
    )*};
}

value_enum_from_choice!(
    crate::models::import::ImportFormat,
    crate::models::import::RuntimeModel,
    crate::models::import::lcdb::LcdbScore,
    crate::jobs::import::ImportFormat,
    crate::jobs::import::Fractional,
    crate::present::figures::Format,
    crate::present::figures::Style,
    crate::present::figures::PaperWidth,
    crate::present::table::TableFormat,
);

#[cfg(test)]
mod tests {
    use super::*;
    use crate::core::choice::parse_choice;

    /// clap and the scenario parser agree on every name, both ways.
    fn agree<T: Choice + ValueEnum + std::fmt::Debug>() {
        for v in T::ALL {
            let parsed = <T as ValueEnum>::from_str(v.name(), true);
            assert_eq!(parsed.as_ref(), Ok(v), "{}", v.name());
            let upper = v.name().to_ascii_uppercase();
            assert_eq!(parse_choice::<T>(&upper), Some(*v));
            assert_eq!(<T as ValueEnum>::from_str(&upper, true).as_ref(), Ok(v));
        }
        assert!(<T as ValueEnum>::from_str("no-such-value", true).is_err());
        assert_eq!(parse_choice::<T>("no-such-value"), None);
    }

    #[test]
    fn clap_and_scenarios_accept_the_same_names() {
        agree::<crate::models::import::ImportFormat>();
        agree::<crate::models::import::RuntimeModel>();
        agree::<crate::models::import::lcdb::LcdbScore>();
        agree::<crate::jobs::import::ImportFormat>();
        agree::<crate::jobs::import::Fractional>();
        agree::<crate::present::figures::Format>();
        agree::<crate::present::figures::Style>();
        agree::<crate::present::figures::PaperWidth>();
        agree::<crate::present::table::TableFormat>();
    }
}
