//! The client side (wire contract §8).
