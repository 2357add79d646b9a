// The sample program scripts/check-foundation-free inspects with each trait on: it uses what each
// trait adds (conversions; a CourierTransport), so their code and dependencies are linked, and
// the check reads which shared libraries the binary needs. Without traits it uses the client only.

import Courier
import CourierHTTP1
import CourierURL
#if HTTPTypes
import CourierHTTPTypes
import HTTPTypes
#endif
#if OpenAPI
import CourierOpenAPI
import OpenAPIRuntime
#endif

let request = Courier.HTTPRequest(method: .get, uri: try URI(parsing: "http://127.0.0.1:1/sample"),
                                  headers: HTTPHeaders([("Vary", "A"), ("Vary", "B")]))
var traits: [String] = []
#if HTTPTypes
let converted = try HTTPTypes.HTTPRequest(request)
precondition(converted.headerFields[values: .vary] == ["A", "B"])
traits.append("HTTPTypes")
#endif
#if OpenAPI
let transport = CourierTransport(configuration: .init(timeout: .seconds(1)))
_ = transport.configuration
traits.append("OpenAPI")
#endif
print("courier-traits-sample: \(request.method) \(request.uri), traits: \(traits.isEmpty ? "none" : traits.joined(separator: ","))")
