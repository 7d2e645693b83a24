//! The HTML report as a person sees it: rendered by headless Chromium,
//! screenshotted, and checked to show the matrix's colours.
//!
//! Needs `chromium` (Debian package `chromium`; `.ci/run` installs it). Where
//! it is missing the test says so and passes, except under CI (`CI` set),
//! where a missing browser is a failure: CI must not silently skip it.

use std::path::{Path, PathBuf};
use std::process::Command;

fn chromium() -> Option<PathBuf> {
    [
        "/usr/bin/chromium",
        "/usr/bin/chromium-browser",
        "/usr/bin/google-chrome",
    ]
    .iter()
    .map(PathBuf::from)
    .find(|p| p.exists())
}

/// Counts pixels within 40 of `rgb` on every channel.
fn count_near(pixels: &[u8], channels: usize, rgb: [u8; 3]) -> usize {
    pixels
        .chunks(channels)
        .filter(|p| (0..3).all(|i| p[i].abs_diff(rgb[i]) <= 40))
        .count()
}

fn screenshot(browser: &Path, html: &Path, png: &Path, profile: &Path) {
    let status = Command::new(browser)
        .args([
            "--headless",
            "--no-sandbox",
            "--disable-gpu",
            "--disable-quic",
            "--no-first-run",
            "--disable-background-networking",
            "--disable-component-update",
            "--disable-sync",
            "--hide-scrollbars",
            "--window-size=1400,1800",
        ])
        .arg(format!("--user-data-dir={}", profile.display()))
        .arg(format!("--screenshot={}", png.display()))
        .arg(format!("file://{}", html.display()))
        .output()
        .expect("chromium runs");
    assert!(
        status.status.success(),
        "chromium failed: {}",
        String::from_utf8_lossy(&status.stderr)
    );
}

#[test]
fn the_html_report_renders_with_its_matrix_colours() {
    let Some(browser) = chromium() else {
        assert!(
            std::env::var_os("CI").is_none(),
            "CI must install chromium (apt-get install chromium)"
        );
        eprintln!("skipping: chromium is not installed (apt-get install chromium)");
        return;
    };
    let dir = std::env::temp_dir().join(format!("u8c-html-{}", std::process::id()));
    let _ = std::fs::remove_dir_all(&dir);
    let root = PathBuf::from(env!("CARGO_MANIFEST_DIR"));
    // A report with passes and failures: the lax fake adapter decodes valid
    // text right and ill-formed input wrong.
    let script = root.join("tests/fixtures/fake_adapter.py");
    let mut args = vec!["audit".to_string(), "-d".into(), "lax".into()];
    args.extend(["--cmd".into(), format!("python3 {} lax", script.display())]);
    args.extend(
        [
            "--external-diff",
            "300",
            "--external-exhaustive",
            "1",
            "--out",
        ]
        .map(String::from),
    );
    args.push(dir.display().to_string());
    let o = Command::new(env!("CARGO_BIN_EXE_utf8conform"))
        .args(&args)
        .current_dir(&root)
        .output()
        .unwrap();
    assert!(o.status.success(), "{}", String::from_utf8_lossy(&o.stderr));

    let png_path = dir.join("index.png");
    screenshot(
        &browser,
        &dir.join("index.html"),
        &png_path,
        &dir.join("profile"),
    );
    let decoder =
        png::Decoder::new(std::fs::File::open(&png_path).expect("a screenshot was written"));
    let mut reader = decoder.read_info().unwrap();
    let mut pixels = vec![0; reader.output_buffer_size()];
    let info = reader.next_frame(&mut pixels).unwrap();
    assert_eq!((info.width, info.height), (1400, 1800));
    let channels = info.color_type.samples();
    let pixels = &pixels[..info.buffer_size()];
    // Pass cells are #2da44e, fail cells #cf222e (see report/html.rs).
    let green = count_near(pixels, channels, [0x2d, 0xa4, 0x4e]);
    let red = count_near(pixels, channels, [0xcf, 0x22, 0x2e]);
    let total = pixels.len() / channels;
    assert!(
        green > 2_000,
        "no pass cells visible ({green} green pixels)"
    );
    assert!(red > 2_000, "no fail cells visible ({red} red pixels)");
    // Not a blank or error page: most of it is the white background, but
    // far from all.
    let white = count_near(pixels, channels, [0xff, 0xff, 0xff]);
    assert!(
        white < total * 97 / 100 && white > total / 4,
        "{white} of {total} white"
    );
    let _ = std::fs::remove_dir_all(&dir);
}
