//! See the [module overview](super).
