// SPDX-License-Identifier: AGPL-3.0-or-later
#pragma once

#include <QByteArray>
#include <QString>
#include <optional>

namespace marquee::protection {

/** @brief Limits and timeouts of the HTTP framing checks (FramingSocket), all in the server's configuration. */
struct FramingLimits
{
    int headerTimeoutMs = 10000; ///< a request head must arrive this soon after its first byte (or the connection)
    int bodyTimeoutMs = 30000; ///< its body this soon after the head
    int idleTimeoutMs = 60000; ///< a keep-alive connection with nothing in flight is closed after this
    int maxHeaderBytes = 16 * 1024; ///< request line and header fields together; more is 431
    qint64 maxBodyBytes = 64 * 1024; ///< a declared or chunked body over this is 413 (ServerConfig::maxBodyBytes)

    enum class Parsed { NotMine, Ok, Bad };
    /** @brief Take a `--header-timeout`, `--body-timeout`, `--idle-timeout` or `--max-header-bytes` option. */
    Parsed parseOption(const QString &option, const QString &value, QString *error);
    /** @brief The usage lines of those options. */
    static QString usage();
};

/** @brief Why a connection's bytes were refused; answered as `{error, message}` with Connection: close. */
struct FramingViolation
{
    int status = 400;
    QByteArray code;
    QByteArray message;
    /** @brief The whole HTTP response, ready to write. */
    QByteArray response() const;
};

/**
 * @brief Follows the HTTP/1.1 request framing of one connection, byte by byte, without keeping bodies: request
 * heads are checked strictly (CRLF only, one Content-Length, never with Transfer-Encoding, only `chunked`,
 * no obsolete folding, no control characters), declared and chunked bodies are held to the body limit, and the
 * bytes of a body are only counted (skip()), never copied. Qt's own parser sees the bytes after this one
 * accepted them (FramingSocket).
 */
class RequestFramer
{
public:
    enum class Phase {
        Idle, ///< between requests: no byte of the next one yet
        Head, ///< inside a request head
        Body, ///< inside a body (Content-Length or chunked)
        Upgraded, ///< after a WebSocket upgrade head: no more HTTP on this connection
        Failed, ///< a violation was reported; nothing more is looked at
    };

    explicit RequestFramer(const FramingLimits &limits);

    /**
     * @brief Bytes of a body that may be passed over without looking at them (the rest of a Content-Length body
     * or of a chunk's data); 0 when the next bytes must be given to feed().
     */
    qint64 skippable() const;
    /** @brief Pass over @p count bytes, at most skippable(). */
    void skip(qint64 count);
    /**
     * @brief Look at the next bytes; consumes all of @p size unless it stops early at a skippable body (then the
     * count it took is returned in @p used) or at a violation (returned, Phase::Failed from then on).
     */
    std::optional<FramingViolation> feed(const char *data, qint64 size, qint64 *used);

    Phase phase() const { return m_phase; }
    /** @brief Requests whose last byte has been seen (each one is then Qt's to answer). */
    quint64 completedRequests() const { return m_completed; }

private:
    enum class Body { None, Length, ChunkSize, ChunkData, ChunkDataEnd, Trailer };
    std::optional<FramingViolation> lineByte(char c, QByteArray &line, bool *lineDone);
    std::optional<FramingViolation> headComplete();
    std::optional<FramingViolation> chunkSizeLine();
    void requestComplete();

    FramingLimits m_limits;
    Phase m_phase = Phase::Idle;
    Body m_body = Body::None;
    QByteArray m_head; ///< the current head so far (bounded by maxHeaderBytes)
    QByteArray m_line; ///< the current chunk-size or trailer line
    bool m_cr = false; ///< the last byte looked at was CR
    qint64 m_remaining = 0; ///< of the Content-Length body or the current chunk
    qint64 m_bodyBytes = 0; ///< decoded body bytes so far (chunked)
    qint64 m_trailerBytes = 0;
    quint64 m_completed = 0;
};

} // namespace marquee::protection
