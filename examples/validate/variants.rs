//! The variants of an atom: the same kernel timed the way some place of a
//! design runs it (warm after another atom on its thread, co-run in a
//! task pool, handed from or handing on to another core in a pipeline, or
//! what waking the next stage costs it), each fitted as an atom of its own
//! and named after the atom (`inc_warm`).

/// A way of timing an atom beside its cold timing. The order is the
/// report's: every atom's warm variant, then every co-run one, and so on.
#[derive(Clone, Copy, Debug, PartialEq, Eq, PartialOrd, Ord)]
pub enum Variant {
    /// On an element fresh in the cache, as after another atom on the
    /// same thread ([`with_cache_reuse`](crate::refinements::with_cache_reuse)).
    Warm,
    /// While every other core runs the same atom on elements of its own
    /// ([`with_contention`](crate::refinements::with_contention)).
    Corun,
    /// On elements another core has just worked on
    /// ([`with_handed`](crate::refinements::with_handed)).
    Handed,
    /// On a core whose every element the next stage takes on another core
    /// ([`with_handing`](crate::refinements::with_handing)).
    Handing,
    /// What waking a sleeping next stage costs a stage that runs the atom
    /// (not an atom of any refined design: the simulated machine's wake-up
    /// cost, [`Suite::measure_waking`](crate::suite::Suite::measure_waking)).
    Waking,
}

impl Variant {
    /// Every variant, in the report's order.
    pub const ALL: [Variant; 5] = [
        Variant::Warm,
        Variant::Corun,
        Variant::Handed,
        Variant::Handing,
        Variant::Waking,
    ];

    /// What the variant's name adds to the atom's.
    fn suffix(self) -> &'static str {
        match self {
            Variant::Warm => "_warm",
            Variant::Corun => "_corun",
            Variant::Handed => "_handed",
            Variant::Handing => "_handing",
            Variant::Waking => "_waking",
        }
    }

    /// The name of this variant of `atom`.
    pub fn name(self, atom: &str) -> String {
        format!("{atom}{}", self.suffix())
    }

    /// The atom whose variant `name` names, if it names this variant.
    pub fn atom_of(self, name: &str) -> Option<&str> {
        name.strip_suffix(self.suffix())
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn a_variant_names_its_atom_and_is_read_back() {
        let names: Vec<String> = Variant::ALL.iter().map(|v| v.name("inc")).collect();
        assert_eq!(
            names,
            [
                "inc_warm",
                "inc_corun",
                "inc_handed",
                "inc_handing",
                "inc_waking"
            ]
        );
        for v in Variant::ALL {
            assert_eq!(v.atom_of(&v.name("inc")), Some("inc"));
        }
        assert_eq!(Variant::Handed.atom_of("inc_warm"), None);
    }
}
