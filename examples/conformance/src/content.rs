//! The media the fixtures return: a 1×1 PNG and a short silent WAV.

/// A 1×1 red PNG, base64-encoded.
pub const RED_PIXEL_PNG: &str = "iVBORw0KGgoAAAANSUhEUgAAAAEAAAABCAYAAAAfFcSJAAAADUlEQVR42mP8z8DwHwAFBQIAX8jx0gAAAABJRU5ErkJggg==";

/// A WAV file (PCM, mono, 8 kHz, 8-bit) of 8 samples of silence, base64-encoded.
pub const SILENT_WAV: &str =
    "UklGRiwAAABXQVZFZm10IBAAAAABAAEAQB8AAEAfAAABAAgAZGF0YQgAAACAgICAgICAgA==";
