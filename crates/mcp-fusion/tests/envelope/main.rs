//! The envelope (wire contract §1–§5, §8): its exact bytes, the seed's
//! example, reading it back, and properties over arbitrary input (their
//! regressions in `properties.proptest-regressions`, beside the source).

use fusion_test_support::library as support;

mod parse;
mod properties;
mod render;
mod seed;
