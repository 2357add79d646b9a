// PropertyListRequestSerializer: AFPropertyListRequestSerializer with the XML format
// (NSPropertyListXMLFormat_v1_0, AFNetworking's default). GET, HEAD and DELETE put the parameters
// in the URI (property-list values become query values); other methods send the XML document with
// Content-Type application/x-plist (only when the caller set none).

import CourierBytes
import CourierHTTP1
import CourierJSON
import CourierURL

/// AFPropertyListRequestSerializer: parameters as an XML property-list body.
public struct PropertyListRequestSerializer: RequestSerializer {
    /// The property-list value to send.
    public typealias Parameters = PropertyListValue

    /// The defaults applied to every request.
    public var defaults: RequestDefaults

    /// Creates a serializer.
    /// - Parameter defaults: the defaults.
    public init(defaults: RequestDefaults = RequestDefaults()) { self.defaults = defaults }

    /// Builds a request with an XML property-list body (or a query for URI methods).
    /// - Parameters:
    ///   - method: the method.
    ///   - uri: the target.
    ///   - parameters: the value, or nil for no body.
    ///   - headers: per-request fields.
    /// - Returns: the request.
    /// - Throws: `.invalidPropertyListValue` (checked before anything is built) or the shared
    ///   header and query errors.
    public func request(method: HTTPMethod, uri: URI, parameters: PropertyListValue?, headers: HTTPHeaders) throws(RequestSerializationError) -> HTTPRequest {
        var document: [UInt8]?
        if let parameters, !defaults.encodesParametersInURI(method) {
            do { document = try PropertyListXMLWriter.write(parameters) } catch {
                throw RequestSerializationError(.invalidPropertyListValue, detail: error.reason)
            }
        }
        var (request, needsBody) = try defaults.baseRequest(method: method, uri: uri, query: parameters.map(QueryValue.init(propertyList:)), headers: headers)
        guard needsBody, let document else { return request }
        if !request.headers.contains(name: "Content-Type") { request.headers.add(name: "Content-Type", value: "application/x-plist") }
        request.body = .bytes(ByteBuffer(bytes: document))
        return request
    }
}

extension QueryValue {
    /// The query value of a property-list value: dates as ISO 8601 text, data as Base64, UIDs as
    /// integers, null the bare key.
    /// - Parameter propertyList: the value.
    public init(propertyList: PropertyListValue) {
        switch propertyList {
        case .string(let value): self = .string(value)
        case .integer(let value): self = .int(value)
        case .real(let value): self = .double(value)
        case .bool(let value): self = .bool(value)
        case .date(let value): self = .string(value.iso8601String() ?? value.description)
        case .data(let bytes): self = .string(Base64.encode(bytes))
        case .array(let values): self = .array(values.map(QueryValue.init(propertyList:)))
        case .dictionary(let entries): self = .dictionary(entries.map { ($0.key, QueryValue(propertyList: $0.value)) })
        case .uid(let value): self = .int(Int64(truncatingIfNeeded: value))
        case .null: self = .null
        }
    }
}
