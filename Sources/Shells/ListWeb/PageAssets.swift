// The page's files, built into the binary from Sources/ListWeb/Page (no CDN, nothing fetched
// from elsewhere: the page works on a LAN without internet), and the path each is served at.
import HTTPTypes
import Hummingbird
import ListModel
import NIOCore

struct PageAsset: Sendable {
    let path: String
    let bytes: [UInt8]
    let contentType: String

    func response() -> Response {
        Response(
            status: .ok,
            headers: [.contentType: contentType, .cacheControl: "no-cache"],
            body: .init(byteBuffer: ByteBuffer(bytes: bytes))
        )
    }
}

enum PageAssets {
    static let all: [PageAsset] = [
        PageAsset(path: "/", bytes: PackageResources.index_html, contentType: "text/html; charset=utf-8"),
        // The page's scripts, one concern each, in the order index.html loads them.
        PageAsset(path: "/state.js", bytes: PackageResources.state_js, contentType: "text/javascript; charset=utf-8"),
        PageAsset(path: "/connection.js", bytes: PackageResources.connection_js, contentType: "text/javascript; charset=utf-8"),
        PageAsset(path: "/changes.js", bytes: PackageResources.changes_js, contentType: "text/javascript; charset=utf-8"),
        PageAsset(path: "/edits.js", bytes: PackageResources.edits_js, contentType: "text/javascript; charset=utf-8"),
        PageAsset(path: "/view.js", bytes: PackageResources.view_js, contentType: "text/javascript; charset=utf-8"),
        PageAsset(path: "/rows.js", bytes: PackageResources.rows_js, contentType: "text/javascript; charset=utf-8"),
        PageAsset(path: "/words.js", bytes: PackageResources.words_js, contentType: "text/javascript; charset=utf-8"),
        PageAsset(path: "/taps.js", bytes: PackageResources.taps_js, contentType: "text/javascript; charset=utf-8"),
        PageAsset(path: "/amounts.js", bytes: amountReader, contentType: "text/javascript; charset=utf-8"),
        PageAsset(path: "/app.css", bytes: PackageResources.app_css, contentType: "text/css; charset=utf-8"),
        // At the top, so that its scope is the whole page.
        PageAsset(path: "/sw.js", bytes: PackageResources.sw_js, contentType: "text/javascript; charset=utf-8"),
        PageAsset(path: "/manifest.webmanifest", bytes: PackageResources.manifest_webmanifest, contentType: "application/manifest+json"),
        PageAsset(path: "/icon.svg", bytes: PackageResources.icon_svg, contentType: "image/svg+xml"),
        // iOS puts a PNG on the home screen, 180 px, opaque (icon.svg drawn by Chromium on the
        // icon's green: its rounded corners are the phone's to cut).
        PageAsset(path: "/apple-touch-icon.png", bytes: PackageResources.apple_touch_icon_png, contentType: "image/png"),
        // Browsers ask for it whatever the page names.
        PageAsset(path: "/favicon.ico", bytes: PackageResources.icon_svg, contentType: "image/svg+xml"),
        PageAsset(path: "/pair", bytes: PackageResources.pair_html, contentType: "text/html; charset=utf-8"),
        PageAsset(path: "/pair.js", bytes: PackageResources.pair_js, contentType: "text/javascript; charset=utf-8"),
    ]

    /// The page's amount reader with `Measure`'s units and fractions written in: one table, here.
    static let amountReader: [UInt8] = {
        let placeholder = "/*MEASURE*/{ units: [], fractions: '' }"
        let reader = String(decoding: PackageResources.amounts_js, as: UTF8.self)
        precondition(reader.contains(placeholder), "amounts.js lost the place Measure's table goes")
        let units = Measure.units.sorted().map { "'\($0)'" }.joined(separator: ", ")
        let fractions = String(String.UnicodeScalarView(Measure.fractions.sorted()))
        return Array(reader.replacing(placeholder, with: "{ units: [\(units)], fractions: '\(fractions)' }").utf8)
    }()
}
