//! `softhal view`: a window that plays a capture (cargo feature `viewer`).
//!
//! In: a capture file (either form) and the window options. Out: a window
//! (winit) whose pixels are written by the CPU (softbuffer): the shown
//! image scaled by `--scale`, and under it a status bar drawn with a
//! built-in 5×7 bitmap font — `FRAME N/M`, `DRAW K/N` while stepping draw
//! by draw, the replay time of what is shown, `PLAYING` / `PAUSED` /
//! `END`, or the error that stopped the replay. The title bar says the
//! same. Keys: Space play/pause, Right or N next frame, Left or P previous
//! frame, D next draw, S save the shown image as PNG (its path printed),
//! Q or Escape quit. Each image shown prints one line on stdout (what it
//! is), so scripts and tests know what the window shows.
//!
//! Replay: one worker thread owns a [`capture::Replayer`] and steps it
//! record by record on request (next frame, next draw, go to frame F);
//! draw snapshots are the replay's own ([`capture::Sink::snapshot_after_draw`],
//! as `softhal render --every-draw` takes them). Going back replays from
//! the start up to the frame asked for, so memory stays the capture's live
//! surfaces plus one image, however long the capture. The window never
//! waits for the replay: it shows the last image until the next arrives.
//!
//! Guarantees: a capture that does not load exits as `render` does (1
//! invalid, 2 I/O) before any window opens; no display is a usage error
//! (exit 2); a driver that cannot start, or a replay that stops, is shown
//! in the window and on stderr, not a panic. Exit 0 when the window is
//! closed or `--exit-after-frames` is reached.

use crate::capture_verbs::{self, Span};
use softhal_capture::{self as capture, Capture, Frame, FrameKind, Record, Replayer};
use std::num::NonZeroU32;
use std::path::PathBuf;
use std::process::ExitCode;
use std::rc::Rc;
use std::sync::mpsc;
use std::time::{Duration, Instant};
use winit::application::ApplicationHandler;
use winit::event::{ElementState, WindowEvent};
use winit::event_loop::{ActiveEventLoop, ControlFlow, EventLoop, EventLoopProxy};
use winit::keyboard::{Key, NamedKey};
use winit::window::{Window, WindowId};

/// Arguments of `view`.
#[derive(clap::Args, Debug)]
pub struct ViewArgs {
    /// The capture (binary or text).
    pub capture: PathBuf,
    /// Start at presented frame A and stop playing after frame B
    /// (numbered from 1, inclusive: `3`, `2..5`, `2..`).
    #[arg(long, value_name = "A..B", value_parser = capture_verbs::span_arg)]
    pub frames: Option<Span>,
    /// Start paused on the first frame.
    #[arg(long)]
    pub paused: bool,
    /// Window pixels per image pixel (1 to 16).
    #[arg(long, value_name = "N", default_value_t = 1, value_parser = clap::value_parser!(u32).range(1..=16))]
    pub scale: u32,
    /// Quit after this many images have been shown (for scripts and tests).
    #[arg(long, value_name = "N")]
    pub exit_after_frames: Option<usize>,
    /// Save the window's contents (image and status bar) as PNG to PATH
    /// when quitting after --exit-after-frames (default: after 1 image).
    #[arg(long, value_name = "PATH")]
    pub screenshot: Option<PathBuf>,
}

/// Height of the status bar under the image, in window pixels.
const BAR: u32 = 11;
/// The narrowest window, in pixels: room for a 40-character status line.
const MIN_WIDTH: u32 = 240;
/// The fastest play rate: one frame per this many milliseconds.
const PLAY_MS: u64 = 16;

/// What the window asks the replay worker for.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
enum Request {
    /// Replay up to the next presented frame.
    NextFrame,
    /// Replay up to the next DrawPrimitives2 call (or the next presented
    /// frame, if the frame has no draw left).
    NextDraw,
    /// Show presented frame F (from 1), replaying from the start if it
    /// is behind.
    Frame(usize),
}

/// What the worker answers.
enum Reply {
    /// An image to show.
    Shown(Shown),
    /// The capture ended: nothing further to show.
    End,
    /// The replay cannot go on (why).
    Failed(String),
}

/// An image the worker produced and how it was reached.
struct Shown {
    frame: Frame,
    /// The presented frame shown, or (draws) the frame being drawn.
    number: usize,
    /// `(k, n)`: the image is the render target after draw k of the n of
    /// its frame.
    draw: Option<(usize, usize)>,
    /// Replay time of the records behind it.
    took: Duration,
}

/// A key's action.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
enum Action {
    TogglePlay,
    Step(Request),
    PreviousFrame,
    Save,
    Quit,
}

/// The action of a pressed key (see the module documentation).
fn action(key: &Key) -> Option<Action> {
    match key {
        Key::Named(NamedKey::Space) => Some(Action::TogglePlay),
        Key::Named(NamedKey::ArrowRight) => Some(Action::Step(Request::NextFrame)),
        Key::Named(NamedKey::ArrowLeft) => Some(Action::PreviousFrame),
        Key::Named(NamedKey::Escape) => Some(Action::Quit),
        Key::Character(c) => match c.to_ascii_lowercase().as_str() {
            "n" => Some(Action::Step(Request::NextFrame)),
            "p" => Some(Action::PreviousFrame),
            "d" => Some(Action::Step(Request::NextDraw)),
            "s" => Some(Action::Save),
            "q" => Some(Action::Quit),
            _ => None,
        },
        _ => None,
    }
}

/// DrawPrimitives2 calls of each presented frame, as the capture records
/// them (frame F's are the calls after the (F-1)-th Flip / Present).
fn draws_per_frame(c: &Capture) -> Vec<usize> {
    let mut out = vec![0];
    for r in &c.records {
        match r {
            Record::DrawPrimitives2 { .. } => {
                if let Some(n) = out.last_mut() {
                    *n += 1;
                }
            }
            Record::Flip { .. } | Record::Present { .. } => out.push(0),
            _ => {}
        }
    }
    out
}

/// The size of the capture's first render target (the window's first
/// size), or 640×480.
fn first_target_size(c: &Capture) -> (u32, u32) {
    c.records
        .iter()
        .find_map(|r| match r {
            Record::CreateSurface { spec, .. }
                if spec.kind_code() == Some(capture::record::SurfaceKindCode::RenderTarget) =>
            {
                Some((spec.width.max(1), spec.height.max(1)))
            }
            _ => None,
        })
        .unwrap_or((640, 480))
}

/// The replay worker's state: a replayer stepped record by record.
struct Worker {
    capture: Capture,
    draws: Vec<usize>,
    replayer: Option<Replayer>,
    /// The next record to replay.
    next: usize,
    /// Presented frames so far.
    presented: usize,
    /// Draw snapshots taken in the frame being drawn.
    draw_in_frame: usize,
    /// The replay has finished (final images handed over).
    ended: bool,
}

/// Keeps the images a replay step hands over; asks for draw snapshots
/// when stepping draw by draw.
struct Catch {
    draws: bool,
    got: Option<Frame>,
}

impl capture::Sink for Catch {
    fn frame(&mut self, f: Frame) {
        // A final image never replaces an image of the step.
        if f.kind != FrameKind::Final || self.got.is_none() {
            self.got = Some(f);
        }
    }
    fn step(&mut self, _: capture::Step) {}
    fn snapshot_after_draw(&mut self, _: usize, _: usize) -> bool {
        self.draws
    }
}

impl Worker {
    fn restart(&mut self) -> Result<(), String> {
        self.replayer = None;
        let r = Replayer::new(crate::DEFAULT_THREADS)
            .map_err(|e| format!("cannot start the driver: {e}"))?;
        self.replayer = Some(r);
        (self.next, self.presented, self.draw_in_frame, self.ended) = (0, 0, 0, false);
        Ok(())
    }

    /// Replays until an image of the kind asked for (a presented frame;
    /// with `draws`, a draw snapshot too) or the end, whose final image
    /// is returned only if the capture presented none.
    fn advance(&mut self, draws: bool) -> Result<Option<Shown>, String> {
        let start = Instant::now();
        let mut sink = Catch { draws, got: None };
        if self.replayer.is_none() && !self.ended {
            self.restart()?;
        }
        while let Some(r) = self.replayer.as_mut() {
            let Some(rec) = self.capture.records.get(self.next) else {
                if let Some(r) = self.replayer.take() {
                    r.finish(self.capture.records.len(), &mut sink);
                }
                self.ended = true;
                break;
            };
            r.step(self.next, rec, &mut sink);
            self.next += 1;
            if sink.got.is_some() {
                break;
            }
        }
        let Some(frame) = sink.got else {
            return Ok(None);
        };
        let (number, draw) = match frame.kind {
            FrameKind::Presented => {
                self.presented += 1;
                self.draw_in_frame = 0;
                (self.presented, None)
            }
            FrameKind::Draw { frame: f, .. } => {
                self.draw_in_frame += 1;
                let n = self.draws.get(f.saturating_sub(1)).copied().unwrap_or(0);
                (f, Some((self.draw_in_frame, n.max(self.draw_in_frame))))
            }
            FrameKind::Final if self.presented == 0 => (0, None),
            FrameKind::Final => return Ok(None),
        };
        Ok(Some(Shown {
            frame,
            number,
            draw,
            took: start.elapsed(),
        }))
    }

    fn serve(&mut self, req: Request) -> Reply {
        let shown = match req {
            Request::NextFrame => self.advance(false),
            Request::NextDraw => self.advance(true),
            Request::Frame(f) => {
                let behind = f <= self.presented || self.ended;
                match if behind { self.restart() } else { Ok(()) } {
                    Err(e) => Err(e),
                    Ok(()) => loop {
                        match self.advance(false) {
                            Ok(Some(s)) if s.number < f && s.frame.kind == FrameKind::Presented => {
                            }
                            other => break other,
                        }
                    },
                }
            }
        };
        match shown {
            Ok(Some(s)) => Reply::Shown(s),
            Ok(None) => Reply::End,
            Err(e) => Reply::Failed(e),
        }
    }
}

/// The window: what it shows and the state of play.
struct Viewer {
    a: ViewArgs,
    name: String,
    frames: u64,
    size: (u32, u32),
    to_worker: mpsc::Sender<Request>,
    /// A request is being served; the next one waits in `pending`.
    busy: bool,
    pending: Option<Request>,
    playing: bool,
    next_play: Instant,
    shown: Option<Shown>,
    /// `END` or the error that stopped the replay.
    note: Option<String>,
    images: usize,
    /// The shown image's line is on stdout.
    announced: bool,
    window: Option<Rc<Window>>,
    surface: Option<softbuffer::Surface<Rc<Window>, Rc<Window>>>,
    /// The last presented window pixels (0RGB), for `--screenshot`.
    pixels: Vec<u32>,
    failure: Option<String>,
}

impl Viewer {
    fn ask(&mut self, req: Request) {
        if self.busy {
            self.pending = Some(req);
            return;
        }
        if self.to_worker.send(req).is_ok() {
            self.busy = true;
        }
    }

    /// The status line (title bar and status bar).
    fn status(&self) -> String {
        let mut s = match &self.shown {
            Some(x) if x.frame.kind == FrameKind::Final => "final image".to_string(),
            Some(x) => format!("frame {}/{}", x.number, self.frames),
            None => "replaying".to_string(),
        };
        if let Some((k, n)) = self.shown.as_ref().and_then(|x| x.draw) {
            s.push_str(&format!(" draw {k}/{n}"));
        }
        if let Some(x) = &self.shown {
            s.push_str(&format!(" {:.1} ms", x.took.as_secs_f64() * 1e3));
        }
        s.push_str(match (&self.note, self.playing) {
            (Some(n), _) => return format!("{s} {n}"),
            (None, true) => " playing",
            (None, false) => " paused",
        });
        s
    }

    fn redraw(&mut self) {
        let status = self.status();
        let announce = (!self.announced)
            .then(|| self.shown.as_ref().map(|s| self.status_for_stdout(s)))
            .flatten();
        let (Some(window), Some(surface)) = (&self.window, &mut self.surface) else {
            return;
        };
        window.set_title(&format!("softhal view: {}: {status}", self.name));
        let size = window.inner_size();
        let (Some(w), Some(h)) = (NonZeroU32::new(size.width), NonZeroU32::new(size.height)) else {
            return;
        };
        if surface.resize(w, h).is_err() {
            return;
        }
        let Ok(mut buf) = surface.buffer_mut() else {
            return;
        };
        let image = self.shown.as_ref().map(|s| &s.frame);
        compose(
            &mut buf,
            w.get(),
            h.get(),
            self.a.scale,
            image,
            &status,
            self.failure.is_some(),
        );
        self.pixels.clear();
        self.pixels.extend_from_slice(&buf);
        if buf.present().is_ok() {
            if let Some(line) = announce {
                // One line per image, once it is on the screen.
                println!("shown: {line}");
                self.announced = true;
            }
        }
    }

    fn status_for_stdout(&self, s: &Shown) -> String {
        let what = match s.frame.kind {
            FrameKind::Final => "final 1".to_string(),
            FrameKind::Presented => format!("frame {}/{}", s.number, self.frames),
            FrameKind::Draw { call, .. } => {
                let (k, n) = s.draw.unwrap_or((0, 0));
                format!(
                    "frame {}/{} draw {k}/{n} (call {call})",
                    s.number, self.frames
                )
            }
        };
        format!(
            "{what} {}x{} fnv1a64={:016x}",
            s.frame.width, s.frame.height, s.frame.checksum
        )
    }

    /// `S`: the shown image (at its own size) as PNG in the working
    /// folder, named as `render` names it.
    fn save(&self) {
        let Some(s) = &self.shown else { return };
        let n = match s.frame.kind {
            FrameKind::Final => 1,
            _ => s.number,
        };
        let path = PathBuf::from(s.frame.kind.file_name(n));
        match capture_verbs::write_png(&path, &s.frame) {
            Ok(()) => println!("saved: {}", path.display()),
            Err(e) => eprintln!("softhal: cannot write {e}"),
        }
    }

    fn screenshot(&self) -> Result<(), String> {
        let Some(path) = &self.a.screenshot else {
            return Ok(());
        };
        let Some(window) = &self.window else {
            return Ok(());
        };
        let size = window.inner_size();
        let rgba: Vec<u8> = self
            .pixels
            .iter()
            .flat_map(|p| [(p >> 16) as u8, (p >> 8) as u8, *p as u8, 255])
            .collect();
        let frame = Frame {
            kind: FrameKind::Presented,
            record: 0,
            surface: 0,
            width: size.width,
            height: size.height,
            checksum: capture::fnv1a64(&rgba),
            rgba,
        };
        capture_verbs::write_png(path, &frame)?;
        println!("screenshot: {}", path.display());
        Ok(())
    }

    fn quit(&mut self, el: &ActiveEventLoop) {
        if let Err(e) = self.screenshot() {
            self.failure = Some(format!("cannot write {e}"));
        }
        el.exit();
    }

    fn on_reply(&mut self, el: &ActiveEventLoop, r: Reply) {
        self.busy = false;
        match r {
            Reply::Shown(s) => {
                let (w, h) = (s.frame.width, s.frame.height);
                if (w, h) != self.size {
                    self.size = (w, h);
                    if let Some(win) = &self.window {
                        let _ = win.request_inner_size(window_size(w, h, self.a.scale));
                    }
                }
                let last = self.a.frames.map_or(usize::MAX, |f| f.last);
                if s.frame.kind == FrameKind::Presented && s.number >= last {
                    self.playing = false;
                }
                self.note = None;
                self.shown = Some(s);
                self.announced = false;
                self.images += 1;
                self.redraw();
                if self.a.exit_after_frames.is_some_and(|n| self.images >= n) {
                    self.quit(el);
                    return;
                }
            }
            Reply::End => {
                self.playing = false;
                self.note = Some("end".into());
                self.redraw();
            }
            Reply::Failed(e) => {
                eprintln!("softhal: {}: {e}", self.name);
                self.playing = false;
                self.note = Some(e.clone());
                self.failure = Some(e);
                self.redraw();
            }
        }
        if let Some(p) = self.pending.take() {
            self.ask(p);
        }
    }

    fn on_key(&mut self, el: &ActiveEventLoop, key: &Key) {
        let Some(act) = action(key) else { return };
        match act {
            Action::TogglePlay => {
                self.playing = !self.playing && self.note.is_none();
                self.redraw();
            }
            Action::Step(req) => {
                self.playing = false;
                self.ask(req);
            }
            Action::PreviousFrame => {
                self.playing = false;
                let now = self.shown.as_ref().map_or(1, |s| match s.frame.kind {
                    // A draw snapshot of frame F: its previous frame is F-1.
                    FrameKind::Draw { .. } | FrameKind::Presented => s.number,
                    FrameKind::Final => 1,
                });
                self.ask(Request::Frame(now.saturating_sub(1).max(1)));
            }
            Action::Save => self.save(),
            Action::Quit => self.quit(el),
        }
    }
}

/// The window's inner size for a `w`×`h` image at `scale`, status bar
/// included.
fn window_size(w: u32, h: u32, scale: u32) -> winit::dpi::PhysicalSize<u32> {
    winit::dpi::PhysicalSize::new(
        w.saturating_mul(scale).max(MIN_WIDTH),
        h.saturating_mul(scale).saturating_add(BAR),
    )
}

/// Writes the window's pixels (0RGB, `w`×`h`): `image` scaled by `scale`
/// from the top left (clipped), the rest dark grey, and the status bar
/// along the bottom (red when the replay failed).
fn compose(
    buf: &mut [u32],
    w: u32,
    h: u32,
    scale: u32,
    image: Option<&Frame>,
    status: &str,
    failed: bool,
) {
    buf.fill(0x0020_2020);
    let bar_top = h.saturating_sub(BAR);
    if let Some(f) = image {
        let scale = scale.max(1);
        for y in 0..bar_top.min(f.height.saturating_mul(scale)) {
            let sy = (y / scale) as usize;
            for x in 0..w.min(f.width.saturating_mul(scale)) {
                let i = (sy * f.width as usize + (x / scale) as usize) * 4;
                if let Some(p) = f.rgba.get(i..i + 3) {
                    let v = (u32::from(p[0]) << 16) | (u32::from(p[1]) << 8) | u32::from(p[2]);
                    if let Some(d) = buf.get_mut((y * w + x) as usize) {
                        *d = v;
                    }
                }
            }
        }
    }
    let bg = if failed { 0x0080_1010 } else { 0x0000_0000 };
    if let Some(bar) = buf.get_mut((bar_top * w) as usize..) {
        bar.fill(bg);
    }
    font::draw(buf, w, 2, bar_top + 2, status, 0x00e0_e0e0);
}

impl ApplicationHandler<Reply> for Viewer {
    fn resumed(&mut self, el: &ActiveEventLoop) {
        if self.window.is_some() {
            return;
        }
        let attrs = Window::default_attributes()
            .with_title(format!("softhal view: {}", self.name))
            .with_inner_size(window_size(self.size.0, self.size.1, self.a.scale))
            .with_resizable(false);
        let made = el
            .create_window(attrs)
            .map_err(|e| e.to_string())
            .and_then(|w| {
                let w = Rc::new(w);
                let ctx = softbuffer::Context::new(w.clone()).map_err(|e| e.to_string())?;
                let s = softbuffer::Surface::new(&ctx, w.clone()).map_err(|e| e.to_string())?;
                Ok((w, s))
            });
        match made {
            Ok((w, s)) => {
                w.request_redraw();
                self.window = Some(w);
                self.surface = Some(s);
            }
            Err(e) => {
                self.failure = Some(format!("cannot open a window: {e}"));
                el.exit();
            }
        }
    }

    fn user_event(&mut self, el: &ActiveEventLoop, r: Reply) {
        self.on_reply(el, r);
    }

    fn window_event(&mut self, el: &ActiveEventLoop, _: WindowId, event: WindowEvent) {
        match event {
            WindowEvent::CloseRequested => self.quit(el),
            WindowEvent::RedrawRequested => self.redraw(),
            WindowEvent::KeyboardInput { event, .. } if event.state == ElementState::Pressed => {
                self.on_key(el, &event.logical_key);
            }
            _ => {}
        }
    }

    fn about_to_wait(&mut self, el: &ActiveEventLoop) {
        if self.playing && !self.busy {
            let now = Instant::now();
            if now >= self.next_play {
                self.next_play = now + Duration::from_millis(PLAY_MS);
                self.ask(Request::NextFrame);
            } else {
                el.set_control_flow(ControlFlow::WaitUntil(self.next_play));
                return;
            }
        }
        el.set_control_flow(ControlFlow::Wait);
    }
}

/// Runs the worker: serves requests until the window goes away. A panic
/// in the replay (a bug: the replay promises none) is shown as a failure
/// and ends the worker, rather than leaving the window waiting.
fn spawn_worker(mut w: Worker, requests: mpsc::Receiver<Request>, proxy: EventLoopProxy<Reply>) {
    std::thread::spawn(move || {
        while let Ok(req) = requests.recv() {
            let served = std::panic::catch_unwind(std::panic::AssertUnwindSafe(|| w.serve(req)));
            let stop = served.is_err();
            let reply =
                served.unwrap_or_else(|_| Reply::Failed("the replay panicked (a bug)".into()));
            if proxy.send_event(reply).is_err() || stop {
                break;
            }
        }
    });
}

/// `softhal view`.
pub fn run(a: ViewArgs) -> ExitCode {
    let c = match capture_verbs::load(&a.capture, false) {
        Ok(c) => c,
        Err(code) => return code,
    };
    let event_loop = match EventLoop::<Reply>::with_user_event().build() {
        Ok(l) => l,
        Err(e) => {
            let m = format!("cannot open a window (is DISPLAY or WAYLAND_DISPLAY set?): {e}");
            return crate::fail(false, 2, "display", &m, serde_json::Value::Null);
        }
    };
    let (tx, rx) = mpsc::channel();
    let frames = capture::info::summarize(&c).frames;
    let size = first_target_size(&c);
    let worker = Worker {
        draws: draws_per_frame(&c),
        capture: c,
        replayer: None,
        next: 0,
        presented: 0,
        draw_in_frame: 0,
        ended: false,
    };
    spawn_worker(worker, rx, event_loop.create_proxy());
    let name = a.capture.file_name().map_or_else(
        || a.capture.display().to_string(),
        |n| n.to_string_lossy().to_string(),
    );
    let first = a.frames.map_or(1, |f| f.first);
    let mut v = Viewer {
        playing: !a.paused,
        a,
        name,
        frames,
        size,
        to_worker: tx,
        busy: false,
        pending: None,
        next_play: Instant::now(),
        shown: None,
        note: None,
        images: 0,
        announced: true,
        window: None,
        surface: None,
        pixels: Vec::new(),
        failure: None,
    };
    v.ask(Request::Frame(first));
    if let Err(e) = event_loop.run_app(&mut v) {
        v.failure.get_or_insert(e.to_string());
    }
    match v.failure {
        Some(e) if v.window.is_none() => {
            crate::fail(false, 2, "display", &e, serde_json::Value::Null)
        }
        Some(e) => {
            eprintln!("softhal: {e}");
            ExitCode::from(1)
        }
        None => ExitCode::SUCCESS,
    }
}

/// A 5×7 bitmap font for the status bar: digits, letters (drawn upper
/// case), space and `/ . : - ( ) =`; anything else is drawn as `?`.
mod font {
    /// Rows top to bottom, bit 4 the leftmost pixel.
    fn glyph(c: char) -> [u8; 7] {
        match c.to_ascii_uppercase() {
            '0' => [0x0E, 0x11, 0x13, 0x15, 0x19, 0x11, 0x0E],
            '1' => [0x04, 0x0C, 0x04, 0x04, 0x04, 0x04, 0x0E],
            '2' => [0x0E, 0x11, 0x01, 0x02, 0x04, 0x08, 0x1F],
            '3' => [0x1F, 0x02, 0x04, 0x02, 0x01, 0x11, 0x0E],
            '4' => [0x02, 0x06, 0x0A, 0x12, 0x1F, 0x02, 0x02],
            '5' => [0x1F, 0x10, 0x1E, 0x01, 0x01, 0x11, 0x0E],
            '6' => [0x06, 0x08, 0x10, 0x1E, 0x11, 0x11, 0x0E],
            '7' => [0x1F, 0x01, 0x02, 0x04, 0x08, 0x08, 0x08],
            '8' => [0x0E, 0x11, 0x11, 0x0E, 0x11, 0x11, 0x0E],
            '9' => [0x0E, 0x11, 0x11, 0x0F, 0x01, 0x02, 0x0C],
            'A' => [0x0E, 0x11, 0x11, 0x11, 0x1F, 0x11, 0x11],
            'B' => [0x1E, 0x11, 0x11, 0x1E, 0x11, 0x11, 0x1E],
            'C' => [0x0E, 0x11, 0x10, 0x10, 0x10, 0x11, 0x0E],
            'D' => [0x1C, 0x12, 0x11, 0x11, 0x11, 0x12, 0x1C],
            'E' => [0x1F, 0x10, 0x10, 0x1E, 0x10, 0x10, 0x1F],
            'F' => [0x1F, 0x10, 0x10, 0x1E, 0x10, 0x10, 0x10],
            'G' => [0x0E, 0x11, 0x10, 0x17, 0x11, 0x11, 0x0F],
            'H' => [0x11, 0x11, 0x11, 0x1F, 0x11, 0x11, 0x11],
            'I' => [0x0E, 0x04, 0x04, 0x04, 0x04, 0x04, 0x0E],
            'J' => [0x07, 0x02, 0x02, 0x02, 0x02, 0x12, 0x0C],
            'K' => [0x11, 0x12, 0x14, 0x18, 0x14, 0x12, 0x11],
            'L' => [0x10, 0x10, 0x10, 0x10, 0x10, 0x10, 0x1F],
            'M' => [0x11, 0x1B, 0x15, 0x15, 0x11, 0x11, 0x11],
            'N' => [0x11, 0x11, 0x19, 0x15, 0x13, 0x11, 0x11],
            'O' => [0x0E, 0x11, 0x11, 0x11, 0x11, 0x11, 0x0E],
            'P' => [0x1E, 0x11, 0x11, 0x1E, 0x10, 0x10, 0x10],
            'Q' => [0x0E, 0x11, 0x11, 0x11, 0x15, 0x12, 0x0D],
            'R' => [0x1E, 0x11, 0x11, 0x1E, 0x14, 0x12, 0x11],
            'S' => [0x0F, 0x10, 0x10, 0x0E, 0x01, 0x01, 0x1E],
            'T' => [0x1F, 0x04, 0x04, 0x04, 0x04, 0x04, 0x04],
            'U' => [0x11, 0x11, 0x11, 0x11, 0x11, 0x11, 0x0E],
            'V' => [0x11, 0x11, 0x11, 0x11, 0x11, 0x0A, 0x04],
            'W' => [0x11, 0x11, 0x11, 0x15, 0x15, 0x15, 0x0A],
            'X' => [0x11, 0x11, 0x0A, 0x04, 0x0A, 0x11, 0x11],
            'Y' => [0x11, 0x11, 0x11, 0x0A, 0x04, 0x04, 0x04],
            'Z' => [0x1F, 0x01, 0x02, 0x04, 0x08, 0x10, 0x1F],
            ' ' => [0; 7],
            '/' => [0x01, 0x01, 0x02, 0x04, 0x08, 0x10, 0x10],
            '.' => [0, 0, 0, 0, 0, 0x0C, 0x0C],
            ':' => [0, 0x0C, 0x0C, 0, 0x0C, 0x0C, 0],
            '-' => [0, 0, 0, 0x1F, 0, 0, 0],
            '(' => [0x02, 0x04, 0x08, 0x08, 0x08, 0x04, 0x02],
            ')' => [0x08, 0x04, 0x02, 0x02, 0x02, 0x04, 0x08],
            '=' => [0, 0, 0x1F, 0, 0x1F, 0, 0],
            _ => [0x0E, 0x11, 0x01, 0x02, 0x04, 0x00, 0x04],
        }
    }

    /// Draws `text` into `buf` (0RGB, `w` pixels a row) with its top left
    /// at (`x`, `y`), 6 pixels a character, clipped to the buffer.
    pub(super) fn draw(buf: &mut [u32], w: u32, x: u32, y: u32, text: &str, color: u32) {
        for (i, c) in text.chars().enumerate() {
            let gx = x.saturating_add((i as u32).saturating_mul(6));
            if gx.saturating_add(5) > w {
                return;
            }
            for (row, bits) in glyph(c).iter().enumerate() {
                for col in 0..5u32 {
                    if bits & (0x10 >> col) != 0 {
                        let at = (y as usize + row) * w as usize + (gx + col) as usize;
                        if let Some(p) = buf.get_mut(at) {
                            *p = color;
                        }
                    }
                }
            }
        }
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn keys_map_to_their_actions() {
        let ch = |s: &str| Key::Character(s.into());
        assert_eq!(
            action(&Key::Named(NamedKey::Space)),
            Some(Action::TogglePlay)
        );
        assert_eq!(action(&ch("n")), Some(Action::Step(Request::NextFrame)));
        assert_eq!(
            action(&Key::Named(NamedKey::ArrowRight)),
            Some(Action::Step(Request::NextFrame))
        );
        assert_eq!(action(&ch("P")), Some(Action::PreviousFrame));
        assert_eq!(
            action(&Key::Named(NamedKey::ArrowLeft)),
            Some(Action::PreviousFrame)
        );
        assert_eq!(action(&ch("d")), Some(Action::Step(Request::NextDraw)));
        assert_eq!(action(&ch("s")), Some(Action::Save));
        assert_eq!(action(&ch("q")), Some(Action::Quit));
        assert_eq!(action(&Key::Named(NamedKey::Escape)), Some(Action::Quit));
        assert_eq!(action(&ch("x")), None);
    }

    /// The digit 1 at (1, 0): its 7 rows as drawn, worked out from the
    /// glyph (`..X..`, `.XX..`, `..X..` ×4, `.XXX.`).
    #[test]
    fn the_font_draws_a_one() {
        let mut buf = vec![0u32; 8 * 7];
        font::draw(&mut buf, 8, 1, 0, "1", 1);
        let rows: Vec<String> = buf
            .chunks(8)
            .map(|r| r.iter().map(|p| if *p == 1 { 'X' } else { '.' }).collect())
            .collect();
        assert_eq!(
            rows,
            ["...X....", "..XX....", "...X....", "...X....", "...X....", "...X....", "..XXX..."]
        );
    }

    /// A 2×1 image (red, blue) at scale 2 in a 4×(2+BAR) window: the
    /// image's four corners, the bar black below it.
    #[test]
    fn compose_scales_the_image_above_the_bar() {
        let f = Frame {
            kind: FrameKind::Presented,
            record: 0,
            surface: 0,
            width: 2,
            height: 1,
            rgba: vec![255, 0, 0, 255, 0, 0, 255, 255],
            checksum: 0,
        };
        let (w, h) = (4, 2 + BAR);
        let mut buf = vec![0u32; (w * h) as usize];
        compose(&mut buf, w, h, 2, Some(&f), "", false);
        assert_eq!(&buf[0..4], &[0xff0000, 0xff0000, 0x0000ff, 0x0000ff]);
        assert_eq!(&buf[4..8], &[0xff0000, 0xff0000, 0x0000ff, 0x0000ff]);
        assert!(buf[8..].iter().all(|p| *p == 0), "{:x?}", &buf[8..]);
    }
}
