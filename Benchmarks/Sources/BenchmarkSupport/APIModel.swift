// The API document's records as Codable structs (BenchmarkSupport/JSONInputs.swift writes them).
/// The API document's records as `Codable` structs, decoded by Courier and by Foundation from the
/// same bytes (explicit coding keys, so neither decoder converts key case).
public struct APIPage: Codable, Equatable, Sendable {
    public var status: String
    public var page: Page
    public var data: [Record]
    public var next: String?
    public var error: String?

    public struct Page: Codable, Equatable, Sendable {
        public var number: Int
        public var size: Int
        public var total: Int?
        public var cursor: String
    }

    public struct Record: Codable, Equatable, Sendable {
        public var id: Int
        public var idStr: String
        public var createdAt: String
        public var text: String
        public var truncated: Bool
        public var inReplyTo: Int?
        public var user: User
        public var coordinates: [Double]?
        public var tags: [String?]
        public var metrics: Metrics
        public var entities: Entities
        public var lang: String
        public var possiblySensitive: Bool?
        public var place: String?

        enum CodingKeys: String, CodingKey {
            case id, text, truncated, user, coordinates, tags, metrics, entities, lang, place
            case idStr = "id_str", createdAt = "created_at", inReplyTo = "in_reply_to", possiblySensitive = "possibly_sensitive"
        }
    }

    public struct User: Codable, Equatable, Sendable {
        public var id: Int
        public var name: String
        public var screenName: String
        public var location: String?
        public var description: String?
        public var url: String?
        public var followersCount: Int
        public var verified: Bool
        public var score: Double
        public var balance: Double?
        public var profile: Profile

        enum CodingKeys: String, CodingKey {
            case id, name, location, description, url, verified, score, balance, profile
            case screenName = "screen_name", followersCount = "followers_count"
        }
    }

    public struct Profile: Codable, Equatable, Sendable {
        public var color: String
        public var image: String?
        public var theme: String?
    }

    public struct Metrics: Codable, Equatable, Sendable {
        public var retweets: Int
        public var likes: Int
        public var ratio: Double
        public var history: [Double?]
    }

    public struct Entities: Codable, Equatable, Sendable {
        public var hashtags: [String]
        public var mentions: [Mention]
        public var media: Media?
    }

    public struct Mention: Codable, Equatable, Sendable {
        public var screenName: String
        public var indices: [Int]
        enum CodingKeys: String, CodingKey { case indices, screenName = "screen_name" }
    }

    public struct Media: Codable, Equatable, Sendable {
        public var type: String
        public var width: Int
        public var height: Int
    }
}
