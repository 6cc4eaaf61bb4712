//! paint-app: draws a framed banner and prints it as text, one character per pixel.

use raster_draw::Canvas;

fn banner() -> Canvas {
    let mut c = Canvas::new(12, 5);
    c.fill_rect(geom(0, 0, 12, 5), 1);
    c.fill_rect(geom(1, 1, 10, 3), 0);
    c.fill_rect(geom(3, 2, 6, 1), 2);
    c
}

fn geom(x: i32, y: i32, width: u32, height: u32) -> raster_draw::Rect {
    raster_draw::Rect { x, y, width, height }
}

fn render(c: &Canvas) -> String {
    let mut out = String::new();
    for y in 0..c.height as i32 {
        for x in 0..c.width as i32 {
            out.push(match c.get(raster_draw::Point { x, y }) {
                Some(1) => '#',
                Some(2) => '=',
                _ => '.',
            });
        }
        out.push('\n');
    }
    out
}

fn main() {
    print!("{}", render(&banner()));
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn the_banner_has_a_frame_and_a_bar() {
        let text = render(&banner());
        assert_eq!(text.lines().next(), Some("############"));
        assert_eq!(text.lines().nth(2), Some("#..======..#"));
        assert_eq!(text.matches('#').count(), 30);
    }
}
