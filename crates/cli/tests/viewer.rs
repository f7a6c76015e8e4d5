//! `softhal view` on a real X server (Xvfb): the window shows the
//! capture's pixels where X says the window is, as a screenshot of the
//! whole screen (`xwd -root`) sees them; `--screenshot` saves what the
//! window shows; without a display or with a bad capture the verb fails
//! cleanly; keys (sent with `xdotool`) step draw by draw, go back, save
//! and quit. Needs `Xvfb`, `xwd`, `xwininfo` and `xdotool` (Debian: xvfb,
//! x11-apps, x11-utils, xdotool; `.ci/run` installs them) and the `viewer` feature:
//! `cargo test -p softhal-cli --release --features viewer --test viewer`.
//!
//! The capture, `testdata/samples/viewer-frames.shcap.txt`, is 64×48:
//! frame 1 red (255, 0, 0) left of x = 32 and blue (0, 0, 255) from it,
//! frame 2 green (0, 255, 0) above y = 24 and white below, each frame in
//! two DrawPrimitives2 calls (its comments say why).
#![cfg(feature = "viewer")]

mod common;

use common::{repo, softhal, tmp};
use std::io::{BufRead, BufReader, Read};
use std::process::{Child, Command, Stdio};

const RED: [u8; 3] = [255, 0, 0];
const BLUE: [u8; 3] = [0, 0, 255];
const GREEN: [u8; 3] = [0, 255, 0];
const WHITE: [u8; 3] = [255, 255, 255];

/// An Xvfb server of our own (display number chosen by Xvfb), stopped
/// when dropped.
struct Xvfb {
    child: Child,
    display: String,
}

impl Xvfb {
    fn start() -> Xvfb {
        let mut child = Command::new("Xvfb")
            .args([
                "-displayfd",
                "1",
                "-screen",
                "0",
                "320x240x24",
                "-nolisten",
                "tcp",
            ])
            .stdout(Stdio::piped())
            .stderr(Stdio::null())
            .spawn()
            .expect("Xvfb (apt-get install xvfb)");
        let mut line = String::new();
        BufReader::new(child.stdout.take().unwrap())
            .read_line(&mut line)
            .unwrap();
        let n: u32 = line
            .trim()
            .parse()
            .expect("Xvfb printed its display number");
        Xvfb {
            child,
            display: format!(":{n}"),
        }
    }

    fn command(&self, program: &str) -> Command {
        let mut c = Command::new(program);
        c.env("DISPLAY", &self.display)
            .env_remove("WAYLAND_DISPLAY");
        c
    }

    /// `softhal view ARGS` on this server, stopped by coreutils'
    /// `timeout` after 120 s: a viewer that never shows or never quits
    /// fails its test instead of hanging it.
    fn viewer(&self, args: &[&str]) -> Command {
        let mut c = self.command("timeout");
        c.args(["120", env!("CARGO_BIN_EXE_softhal"), "view"])
            .args(args);
        c
    }
}

impl Drop for Xvfb {
    fn drop(&mut self) {
        let _ = self.child.kill();
        let _ = self.child.wait();
    }
}

/// A screenshot read from an XWD file (`xwd`'s format: a header of
/// big-endian 32-bit fields, the window name, `ncolors` 12-byte colour
/// entries, then the pixel rows) of a 24/32-bit TrueColor screen.
struct Screen {
    width: usize,
    height: usize,
    rgb: Vec<[u8; 3]>,
}

impl Screen {
    fn from_xwd(b: &[u8]) -> Screen {
        let field = |i: usize| u32::from_be_bytes(b[i * 4..i * 4 + 4].try_into().unwrap());
        let (header, width, height) = (field(0) as usize, field(4) as usize, field(5) as usize);
        let (byte_order, bpp, stride) = (field(7), field(11), field(12) as usize);
        let masks = [field(14), field(15), field(16)];
        let ncolors = field(19) as usize;
        assert_eq!(bpp, 32, "a 24-bit screen is stored 32 bits a pixel");
        let data = &b[header + ncolors * 12..];
        let mut rgb = Vec::with_capacity(width * height);
        for y in 0..height {
            for x in 0..width {
                let p: [u8; 4] = data[y * stride + x * 4..][..4].try_into().unwrap();
                let v = if byte_order == 0 {
                    u32::from_le_bytes(p)
                } else {
                    u32::from_be_bytes(p)
                };
                rgb.push(masks.map(|m| ((v & m) >> m.trailing_zeros()) as u8));
            }
        }
        Screen { width, height, rgb }
    }

    fn at(&self, x: usize, y: usize) -> [u8; 3] {
        assert!(x < self.width && y < self.height, "({x}, {y}) off screen");
        self.rgb[y * self.width + x]
    }
}

/// The absolute position and size of the window whose title starts with
/// `softhal view`, as `xwininfo -root -tree` lists it
/// (`0x… "title": ()  WxH+x+y  +X+Y`).
fn window_geometry(x: &Xvfb) -> Option<(usize, usize, usize, usize)> {
    let out = x
        .command("xwininfo")
        .args(["-root", "-tree"])
        .output()
        .ok()?;
    let text = String::from_utf8_lossy(&out.stdout).to_string();
    let line = text.lines().find(|l| l.contains("\"softhal view"))?;
    let mut words = line.split_whitespace().rev();
    let abs = words.next()?; // +X+Y
    let size = words.next()?; // WxH+x+y
    let mut xy = abs.trim_start_matches('+').split('+');
    let (ax, ay) = (xy.next()?.parse().ok()?, xy.next()?.parse().ok()?);
    let (w, rest) = size.split_once('x')?;
    let h = rest.split('+').next()?;
    Some((ax, ay, w.parse().ok()?, h.parse().ok()?))
}

/// Runs `softhal view ARGS` on `x` with stdout piped.
fn view(x: &Xvfb, args: &[&str]) -> Child {
    x.viewer(args)
        .stdout(Stdio::piped())
        .stderr(Stdio::piped())
        .spawn()
        .unwrap()
}

/// Reads the viewer's stdout up to its first `shown:` line.
fn wait_shown(child: &mut Child) -> String {
    let mut out = BufReader::new(child.stdout.as_mut().unwrap());
    let mut line = String::new();
    loop {
        line.clear();
        if out.read_line(&mut line).unwrap() == 0 {
            let mut err = String::new();
            child
                .stderr
                .as_mut()
                .unwrap()
                .read_to_string(&mut err)
                .unwrap();
            panic!("the viewer ended without showing an image: {err}");
        }
        if line.starts_with("shown:") {
            return line;
        }
    }
}

/// Writes the window's part of `s` as PNG (to look at; a copy is
/// `docs/images/viewer.png`).
fn save_region(s: &Screen, (x0, y0, w, h): (usize, usize, usize, usize), name: &str) {
    let rgba: Vec<u8> = (y0..y0 + h)
        .flat_map(|y| (x0..x0 + w).map(move |x| (x, y)))
        .flat_map(|(x, y)| {
            let [r, g, b] = s.at(x, y);
            [r, g, b, 255]
        })
        .collect();
    let path = tmp(name);
    softhal_testkit::write_png(&path, w as u32, h as u32, &rgba).unwrap();
    eprintln!("window screenshot: {}", path.display());
}

/// Paused on frame 1 at scale 2: the screen shows, from the window's top
/// left, 64 window pixels of red then 64 of blue, 96 rows high, and the
/// status bar under them.
#[test]
fn the_window_shows_the_frame_on_the_x_screen() {
    let x = Xvfb::start();
    let cap = repo("testdata/samples/viewer-frames.shcap.txt");
    let mut child = view(&x, &[&cap, "--paused", "--scale", "2"]);
    let line = wait_shown(&mut child);
    assert!(line.starts_with("shown: frame 1/2 64x48"), "{line}");
    // The window's pixels reach the server on the viewer's own
    // connection: look again until they are there (at most ~20 s).
    let mut last = None;
    for _ in 0..80 {
        let geometry = window_geometry(&x);
        let shot = x
            .command("xwd")
            .args(["-root", "-silent"])
            .output()
            .unwrap();
        assert!(shot.status.success(), "xwd failed");
        let screen = Screen::from_xwd(&shot.stdout);
        if let Some((x0, y0, w, h)) = geometry {
            let px = |dx: usize, dy: usize| screen.at(x0 + dx, y0 + dy);
            let want = [
                ((0, 0), RED),
                ((63, 0), RED),
                ((64, 0), BLUE),
                ((127, 0), BLUE),
                ((0, 95), RED),
                ((127, 95), BLUE),
            ];
            let got: Vec<[u8; 3]> = want.iter().map(|((dx, dy), _)| px(*dx, *dy)).collect();
            if want.iter().map(|(_, c)| *c).eq(got.iter().copied()) {
                // The status bar is below the image: its background is black.
                assert_eq!(px(2, 96 + 10), [0, 0, 0]);
                assert_eq!((w, h), (240, 96 + 11), "window size");
                save_region(&screen, (x0, y0, w, h), "viewer.png");
                let _ = child.kill();
                let _ = child.wait();
                return;
            }
            last = Some(got);
        }
        std::thread::sleep(std::time::Duration::from_millis(250));
    }
    let _ = child.kill();
    panic!("the screen never showed frame 1 in the window: last corners {last:?}");
}

/// `--frames 2 --exit-after-frames 1 --screenshot`: the PNG is the window
/// (240 wide: the narrowest window; 48 + 11 high), green above row 24
/// and white from it where the image is, dark grey right of it, the
/// status bar black at its left edge.
#[test]
fn screenshot_saves_the_window_after_the_frames_asked_for() {
    let x = Xvfb::start();
    let cap = repo("testdata/samples/viewer-frames.shcap.txt");
    let png = tmp("shot.png");
    let out = x
        .viewer(&[
            &cap,
            "--frames",
            "2",
            "--paused",
            "--exit-after-frames",
            "1",
        ])
        .arg("--screenshot")
        .arg(&png)
        .output()
        .unwrap();
    let stdout = String::from_utf8_lossy(&out.stdout);
    assert!(
        out.status.success(),
        "{stdout}{}",
        String::from_utf8_lossy(&out.stderr)
    );
    assert!(stdout.contains("shown: frame 2/2 64x48"), "{stdout}");
    let (w, h, rgba) = softhal_testkit::read_png(&png).unwrap();
    assert_eq!((w, h), (240, 48 + 11));
    let px = |x: u32, y: u32| {
        let i = ((y * w + x) * 4) as usize;
        [rgba[i], rgba[i + 1], rgba[i + 2]]
    };
    assert_eq!(px(0, 0), GREEN);
    assert_eq!(px(63, 23), GREEN);
    assert_eq!(px(0, 24), WHITE);
    assert_eq!(px(63, 47), WHITE);
    assert_eq!(px(64, 0), [0x20, 0x20, 0x20]);
    assert_eq!(px(0, 48 + 10), [0, 0, 0]);
}

/// Sends `key` to the viewer's window with `xdotool` (focus first: with
/// no window manager nothing else gives it the keyboard).
fn press(x: &Xvfb, key: &str) {
    let id = x
        .command("xdotool")
        .args(["search", "--name", "^softhal view"])
        .output()
        .expect("xdotool (apt-get install xdotool)");
    let id = String::from_utf8_lossy(&id.stdout)
        .lines()
        .next()
        .unwrap_or("")
        .to_string();
    assert!(!id.is_empty(), "no viewer window");
    let ok = x
        .command("xdotool")
        .args(["windowfocus", "--sync", &id, "key", key])
        .status()
        .unwrap();
    assert!(ok.success());
}

/// From frame 1 (paused): D shows the render target after each draw of
/// frame 2 (`draw 1/2`, `draw 2/2`), then frame 2 itself; P goes back to
/// frame 1, S saves it as `frame-0001.png` in the working folder (red and
/// blue halves, 64×48), Q quits with status 0.
#[test]
fn keys_step_draw_by_draw_go_back_save_and_quit() {
    let x = Xvfb::start();
    let cap = repo("testdata/samples/viewer-frames.shcap.txt");
    let dir = tmp("keys");
    std::fs::create_dir_all(&dir).unwrap();
    let mut child = x
        .viewer(&[&cap, "--paused"])
        .current_dir(&dir)
        .stdout(Stdio::piped())
        .stderr(Stdio::piped())
        .spawn()
        .unwrap();
    let mut out = BufReader::new(child.stdout.take().unwrap());
    let mut next = || {
        let mut l = String::new();
        out.read_line(&mut l).unwrap();
        l
    };
    assert!(next().starts_with("shown: frame 1/2 64x48"));
    let steps = [
        ("d", "shown: frame 2/2 draw 1/2 (call 3)"),
        ("d", "shown: frame 2/2 draw 2/2 (call 4)"),
        ("d", "shown: frame 2/2 64x48"),
        ("p", "shown: frame 1/2 64x48"),
        ("s", "saved: frame-0001.png"),
    ];
    for (key, want) in steps {
        press(&x, key);
        let got = next();
        assert!(got.starts_with(want), "{key}: {got:?}, expected {want:?}");
    }
    press(&x, "q");
    assert!(child.wait().unwrap().success());
    let (w, h, rgba) = softhal_testkit::read_png(&dir.join("frame-0001.png")).unwrap();
    assert_eq!((w, h), (64, 48));
    assert_eq!(&rgba[..3], &RED);
    assert_eq!(&rgba[(63 * 4)..(63 * 4 + 3)], &BLUE);
}

#[test]
fn without_a_display_view_is_a_usage_error() {
    let out = Command::new(env!("CARGO_BIN_EXE_softhal"))
        .args(["view", &repo("testdata/samples/viewer-frames.shcap.txt")])
        .env_remove("DISPLAY")
        .env_remove("WAYLAND_DISPLAY")
        .output()
        .unwrap();
    assert_eq!(out.status.code(), Some(2));
    let err = String::from_utf8_lossy(&out.stderr);
    assert!(err.contains("cannot open a window"), "{err}");
}

#[test]
fn a_capture_that_does_not_load_fails_before_any_window() {
    let out = softhal(&["view", &repo("testdata/dp2/all-opcodes.dp2s")]);
    assert_eq!(out.status.code(), Some(1), "{out:?}");
    let err = String::from_utf8_lossy(&out.stderr);
    assert!(err.contains("invalid capture"), "{err}");
}
