//! Checks the demo decoder and writes its report with the same renderers
//! as `utf8conform audit`: `cargo run --example report -- OUT_DIR`.

#[path = "../tests/mine.rs"]
mod mine;

fn main() {
    let out = std::env::args().nth(1).unwrap_or_else(|| "kit-demo-report".into());
    let checked = utf8conform::check(&mine::Mine);
    let report = checked.report_of_one();
    std::fs::create_dir_all(&out).expect("an output folder");
    for (name, text) in utf8conform_cli::reports::render_all(&report).expect("a report renders") {
        std::fs::write(std::path::Path::new(&out).join(name), text).expect("a report file");
    }
    print!("{checked}");
    println!("wrote {out}/{{report.json,summary.md,index.html,junit.xml}}");
}
