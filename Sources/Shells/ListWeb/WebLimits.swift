// How much of listd-web (and through it, of listd) anyone may take: connections, pages,
// requests and time. The defaults are what docs/web.md's "Who may use it" lists.

package struct WebLimits: Sendable, Equatable {
    /// Connections open at once, of every kind. Beyond it, the oldest connection not yet
    /// shown to be a paired device's is closed to make room (a flood of half-sent requests
    /// cannot keep a phone out); when every one is a paired device's, the new one is closed.
    package var connections = 512
    /// Connections of one paired device kept from that eviction (its pages and page loads).
    package var protectedPerDevice = 32
    /// A connection that has not shown a paired device's token within this time is closed
    /// (half-sent requests, idle or slow clients, the pairing page's keep-alive).
    package var unpairedTimeout: Duration = .seconds(10)
    /// A paired device's HTTP connection idle this long is closed (its pages' live
    /// connections are kept alive by pings instead).
    package var idleTimeout: Duration = .seconds(60)
    /// Live connections (open pages) of one device, and in all: each holds a connection to
    /// listd, which serves 1,024 and keeps the last 64 for its own user and root (the system
    /// listd-web, a member, holds at most 256).
    package var pagesPerDevice = 10
    package var pages = 200
    /// Requests a device's pages may send in a burst, and per second after it; beyond, a
    /// request is answered `busy` with the time to wait.
    package var requestBurst = 60
    package var requestsPerSecond = 20
    /// The longest line relayed from listd to a page (`--max-relayed-line-bytes`): a list of
    /// 20,000 items of 200 characters is 4.5 MB, and each notification carries its list whole;
    /// a history of 10,000 changes is about 3 MB. A reply past it is refused for its request
    /// alone (`replyTooLarge`); a notification past it closes the page with 1009.
    package var relayedLine = 64 << 20

    package init() {}
}
