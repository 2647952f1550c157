// SPDX-License-Identifier: AGPL-3.0-or-later
#pragma once

#include <QByteArray>
#include <QJsonArray>
#include <QJsonObject>
#include <QList>
#include <QPair>
#include <QString>

namespace marquee::test {

/** @brief A response as the client saw it; status 0 means the connection failed. */
struct HttpResult {
    int status = 0;
    QByteArray body;
    QList<QPair<QByteArray, QByteArray>> headers;
    double latencyMs = 0;

    QJsonObject json() const;
    QJsonArray jsonArray() const;
    QByteArray header(const QByteArray &name) const;
};

/**
 * @brief A small blocking HTTP/1.1 client over a POSIX socket with keep-alive, for tests and benchmarks that
 * want real concurrency from plain threads (one client per thread, no event loop).
 *
 * With the environment variable MARQUEE_RECORD_HTTP_DIR set, every exchange is appended as one JSON line to
 * `<dir>/<pid>.jsonl` (method, path as sent, status, content type, the headers the API contract speaks of, the
 * body when it is JSON of at most 1 MiB), for tests/support/validate_responses.py to check against
 * docs/openapi.yaml. Thread-safe; one write per line.
 */
class HttpClient
{
public:
    HttpClient(QString host, quint16 port);
    ~HttpClient();
    HttpClient(const HttpClient &) = delete;
    HttpClient &operator=(const HttpClient &) = delete;

    void setToken(const QString &token) { m_token = token; }
    HttpResult request(const QByteArray &method, const QByteArray &path, const QByteArray &body = {},
                       const QList<QPair<QByteArray, QByteArray>> &headers = {});
    HttpResult get(const QByteArray &path, const QList<QPair<QByteArray, QByteArray>> &headers = {}) { return request("GET", path, {}, headers); }
    HttpResult post(const QByteArray &path, const QJsonObject &body, const QList<QPair<QByteArray, QByteArray>> &headers = {});
    HttpResult del(const QByteArray &path) { return request("DELETE", path); }
    void disconnect();

private:
    bool ensureConnected();
    bool sendAll(const QByteArray &data);
    bool readResponse(HttpResult &result);

    QString m_host;
    quint16 m_port;
    QString m_token;
    int m_fd = -1;
    QByteArray m_buffer;
};

} // namespace marquee::test
