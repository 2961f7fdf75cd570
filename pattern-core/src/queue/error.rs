//! Why a queueing network could not be solved.

/// Why a [`super::Network`] could not be solved, or a solution could not
/// answer. Bad input gives one of these, never a panic.
#[derive(Clone, Debug, PartialEq, thiserror::Error)]
pub enum QueueError {
    /// The network has no station.
    #[error(
        "the network has no station: add one with `queue`, `multi_server`, `load_dependent` or `delay`"
    )]
    EmptyNetwork,
    /// Two stations share a name.
    #[error("two stations are named `{name}`: every station needs its own name")]
    DuplicateStation {
        /// The name.
        name: String,
    },
    /// A service demand is negative, NaN or infinite.
    #[error(
        "the demand of `{station}` is {value}: a demand is a finite number >= 0 (visits × service time)"
    )]
    InvalidDemand {
        /// The station.
        station: String,
        /// The demand given.
        value: f64,
    },
    /// A multi-server station with no server.
    #[error("`{station}` has 0 servers: a multi-server station needs at least 1")]
    NoServers {
        /// The station.
        station: String,
    },
    /// A load-dependent rate `α(n)` that is not a finite number > 0.
    #[error(
        "the rate of `{station}` with {jobs} jobs present is α({jobs}) = {value}: a rate is a finite number > 0 (and D/α(n) finite)"
    )]
    InvalidRate {
        /// The station.
        station: String,
        /// The number of jobs present.
        jobs: usize,
        /// What `α` returned.
        value: f64,
    },
    /// Every demand is 0: jobs never wait anywhere and the throughput is
    /// unbounded.
    #[error("every demand is 0: the throughput is unbounded (give some station a demand > 0)")]
    ZeroDemand,
    /// A station name a solution does not know.
    #[error("no station is named `{name}` (stations: {known})")]
    UnknownStation {
        /// The name asked for.
        name: String,
        /// The network's stations, comma-separated.
        known: String,
    },
    /// A population whose solution would not fit in memory.
    #[error(
        "a population of {population} jobs over {stations} stations needs more memory than is available"
    )]
    TooLarge {
        /// The population asked for.
        population: usize,
        /// The stations of the network.
        stations: usize,
    },
    /// A network whose exact solution would take too long.
    #[error(
        "exact MVA at N = {population} would take about {steps:.1e} steps (at most {limit:.0e}): use mva_approx, or mva_within with a higher limit"
    )]
    BeyondExact {
        /// The population asked for.
        population: usize,
        /// The estimated steps: `N·K`, plus `N·c` per `c`-server station
        /// and `N²` per general load-dependent station, times the
        /// load-dependent stations (their complements).
        steps: f64,
        /// The most steps the exact solver takes.
        limit: f64,
    },
    /// A general load-dependent station whose rates would be evaluated for
    /// too many populations.
    #[error(
        "`{station}` is load-dependent: its rate is evaluated for every population up to N = {population}, at most {limit}"
    )]
    TooManyRates {
        /// The station.
        station: String,
        /// The population asked for.
        population: usize,
        /// The largest population with general load-dependent stations.
        limit: usize,
    },
    /// An option of the approximate solver out of its range.
    #[error("the option `{option}` is {value}: {expected}")]
    InvalidOption {
        /// The option.
        option: &'static str,
        /// Its value, as text.
        value: String,
        /// What it must be.
        expected: &'static str,
    },
    /// The approximate solver's fixed point was not reached.
    #[error(
        "approximate MVA did not converge in {iterations} iterations (last relative change {change:e})"
    )]
    NoConvergence {
        /// The iterations made.
        iterations: usize,
        /// The last relative change of the queue lengths.
        change: f64,
    },
    /// An open class's arrival rate that is not a finite number `>= 0`.
    #[error("the arrival rate of `{class}` is {value}: a rate is a finite number >= 0")]
    InvalidArrivalRate {
        /// The class.
        class: String,
        /// The rate given.
        value: f64,
    },
    /// A class name given twice, or one a solution does not know.
    #[error("{problem} `{name}` (classes: {known})")]
    Class {
        /// What is wrong with it: "two classes are named", "no class is
        /// named".
        problem: &'static str,
        /// The name.
        name: String,
        /// The network's classes, comma-separated.
        known: String,
    },
    /// A station that the open classes' arrivals keep busy all the time
    /// or more: its queue grows without bound.
    #[error(
        "`{station}` is saturated: the arrivals keep it {utilization:.4} busy (its {servers} server(s) at most 1 each); lower the rates below {}x",
        1.0 / utilization
    )]
    Saturated {
        /// The station.
        station: String,
        /// Its utilization per server at the rates given (`>= 1`).
        utilization: f64,
        /// Its servers.
        servers: usize,
    },
    /// A multi-class network whose exact solution would take too long.
    #[error(
        "exact multi-class MVA at the populations {populations} visits {vectors:.0} population vectors, about {steps:.1e} steps (at most {limit:.0e}): use mva_approx (the Linearizer), or mva_within with a higher limit"
    )]
    BeyondExactClasses {
        /// The classes' populations, in the network's order (`[10, 20]`).
        populations: String,
        /// The population vectors, `∏_c (N_c + 1)`.
        vectors: f64,
        /// The estimated steps (`MultiClassNetwork::exact_steps`).
        steps: f64,
        /// The most steps the exact solver takes.
        limit: f64,
    },
    /// An open class with a demand at a general load-dependent station of
    /// a mixed network: its rate under open arrivals is not modelled.
    #[error(
        "the open class `{class}` visits `{station}`, a load-dependent station: open classes may visit queues, delays and multi-server stations"
    )]
    OpenAtLoadDependent {
        /// The station.
        station: String,
        /// The open class.
        class: String,
    },
    /// A result that is not a finite number (demands so large that the
    /// times overflow).
    #[error("the {quantity} is {value}: the demands are too large for f64")]
    NonFinite {
        /// What overflowed.
        quantity: &'static str,
        /// Its value.
        value: f64,
    },
}
