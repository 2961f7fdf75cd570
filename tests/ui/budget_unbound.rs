// A symbolic count must be given a value in the budget.
use pattern_core::paper::Qsort;
use pattern_core::{cost_budget, design};

design!(type Pool = tpool[n](Qsort));

cost_budget!(Pool, x = 1e6, max = 2.5e9);

fn main() {}
