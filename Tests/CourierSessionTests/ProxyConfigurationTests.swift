// ProxyConfiguration made concrete: proxy URLs parsed as curl's -x takes them, the environment read
// as curl reads it, NO_PROXY applied to explicit and environment proxies alike.

import Courier
import CourierCurlExitCodes
import CourierURL
import Testing

@Suite struct ProxyConfigurationTests {
    @Test func proxyURLsAsCurlTakesThem() throws {
        let plain = try ProxyServer(parsing: "proxy.example")
        #expect(plain.host == "proxy.example" && plain.port == 1080 && plain.credential == nil)
        let full = try ProxyServer(parsing: "http://us%3Aer:p%40ss%20word@Proxy.Example:3128/ignored")
        #expect(full.host == "proxy.example" && full.port == 3128)
        #expect(full.credential == Credential(user: "us:er", password: "p@ss word"))
        #expect(full.description == "http://proxy.example:3128")
        let v6 = try ProxyServer(parsing: "[::1]:8080")
        #expect(v6.host == "::1" && v6.port == 8080 && v6.description == "http://[::1]:8080")
        let userOnly = try ProxyServer(parsing: "http://user@h:1")
        #expect(userOnly.credential == Credential(user: "user", password: ""))
        #expect(throws: SessionError.self) { try ProxyServer(parsing: "http://[bad") }
        do {
            _ = try ProxyServer(parsing: "socks5://h:1")
            Issue.record("a socks proxy was accepted")
        } catch {
            #expect(error.code == .unsupportedProxyScheme && error.curlExitCode == 7)
        }
        do {
            _ = try ProxyServer(parsing: "http://[bad")
        } catch {
            #expect(error.code == .invalidProxy && error.curlExitCode == 5)
        }
    }

    @Test func settingsFromTheEnvironment() throws {
        let env = ["http_proxy": "http://h:1", "HTTPS_PROXY": "s:2", "no_proxy": ".internal, 10.0.0.0/8"]
        let settings = ProxyConfiguration.environment.resolve { env[$0] }
        #expect(try settings.proxy(for: URI(parsing: "http://a.example/x"))?.description == "http://h:1")
        #expect(try settings.proxy(for: URI(parsing: "https://a.example/x"))?.description == "http://s:2")
        #expect(try settings.proxy(for: URI(parsing: "http://db.internal/")) == nil)
        #expect(try settings.proxy(for: URI(parsing: "https://10.2.3.4/")) == nil)
        #expect(try settings.proxy(for: URI(parsing: "https://11.2.3.4/"))?.port == 2)
        // HTTP_PROXY is never read (httpoxy).
        let upper = ProxyConfiguration.environment.resolve { ["HTTP_PROXY": "evil:1"][$0] }
        #expect(upper.isEmpty)
    }

    @Test func explicitProxyWithNoProxyAndCredentials() throws {
        let env = ["no_proxy": "direct.example", "http_proxy": "ignored:9"]
        var configuration = ProxyConfiguration.url("http://u:p@proxy:3128")
        #expect(try configuration.resolve { env[$0] }.proxy(for: URI(parsing: "http://direct.example/")) == nil)
        // --noproxy overrides the environment's list; "" turns bypassing off.
        configuration.noProxy = ""
        let settings = configuration.resolve { env[$0] }
        #expect(try settings.proxy(for: URI(parsing: "http://direct.example/"))?.host == "proxy")
        #expect(try settings.proxy(for: URI(parsing: "http://direct.example/"))?.credential == Credential(user: "u", password: "p"))
        // -U replaces the URL's credentials.
        configuration.credential = Credential(user: "other", password: "x")
        #expect(try configuration.resolve { env[$0] }.proxy(for: URI(parsing: "http://a/"))?.credential?.user == "other")
        // -x "" is no proxy at all.
        #expect(ProxyConfiguration.url("").resolve { env[$0] }.isEmpty)
    }

    @Test func anUnusableProxyIsReportedPerRequest() throws {
        let settings = ProxyConfiguration.environment.resolve { ["https_proxy": "ftp://h:1"][$0] }
        #expect(try settings.proxy(for: URI(parsing: "http://a/")) == nil)
        let uri = try URI(parsing: "https://a/")
        do throws(SessionError) {
            _ = try settings.proxy(for: uri)
            Issue.record("an ftp proxy was used")
        } catch {
            #expect(error.code == .unsupportedProxyScheme)
            #expect(error.message.contains("https_proxy"))
        }
    }
}
