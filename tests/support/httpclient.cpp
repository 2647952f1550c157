// SPDX-License-Identifier: AGPL-3.0-or-later
#include "httpclient.h"

#include <QElapsedTimer>
#include <QJsonDocument>
#include <arpa/inet.h>
#include <cerrno>
#include <cstdlib>
#include <fcntl.h>
#include <mutex>
#include <sys/stat.h>
#include <netinet/in.h>
#include <netinet/tcp.h>
#include <sys/socket.h>
#include <sys/time.h>
#include <unistd.h>

namespace marquee::test {

namespace {
/**
 * Appends exchanges to <MARQUEE_RECORD_HTTP_DIR>/<pid>.jsonl. The directory is read once; the file is opened on
 * first use (and again after a fork, so a child never writes into its parent's file). Off, it costs one branch.
 */
class ExchangeRecorder
{
public:
    static ExchangeRecorder &instance()
    {
        static ExchangeRecorder recorder;
        return recorder;
    }
    bool enabled() const { return !m_dir.isEmpty(); }

    void record(const QByteArray &method, const QByteArray &path, const QList<QPair<QByteArray, QByteArray>> &requestHeaders,
                const QByteArray &requestBody, const HttpResult &result)
    {
        // Request headers that change what the contract allows in the answer.
        static const QList<QByteArray> requestNames = {"Idempotency-Key", "If-None-Match", "Accept-Encoding", "Admission-Token", "X-Signature", "X-Request-Id"};
        // Response headers the contract documents.
        static const QList<QByteArray> responseNames = {"Content-Type", "Content-Encoding", "ETag", "Cache-Control", "Vary", "Retry-After",
                                                        "Allow", "WWW-Authenticate", "Server-Timing", "X-Request-Id"};
        constexpr qsizetype kMaxBody = 1024 * 1024;
        constexpr qsizetype kMaxRequestBody = 4096; // for the report only

        QJsonObject sent;
        for (const auto &[name, value] : requestHeaders) {
            for (const QByteArray &wanted : requestNames) {
                if (name.compare(wanted, Qt::CaseInsensitive) == 0)
                    sent.insert(QString::fromLatin1(wanted.toLower()), QString::fromLatin1(value.left(256)));
            }
        }
        QJsonObject received;
        for (const auto &[name, value] : result.headers) {
            for (const QByteArray &wanted : responseNames) {
                if (name.compare(wanted, Qt::CaseInsensitive) == 0)
                    received.insert(QString::fromLatin1(wanted.toLower()), QString::fromLatin1(value.left(512)));
            }
        }
        QJsonObject line{{QStringLiteral("method"), QString::fromLatin1(method)},
                         {QStringLiteral("path"), QString::fromLatin1(path)},
                         {QStringLiteral("status"), result.status},
                         {QStringLiteral("request_headers"), sent},
                         {QStringLiteral("headers"), received},
                         {QStringLiteral("body_size"), result.body.size()}};
        if (!requestBody.isEmpty())
            line.insert(QStringLiteral("request_body"), QString::fromUtf8(requestBody.left(kMaxRequestBody)));
        const QByteArray contentType = result.header("Content-Type").toLower();
        const bool json = contentType.contains("json");
        if (json && !result.body.isEmpty() && result.body.size() <= kMaxBody) {
            if (result.header("Content-Encoding").isEmpty())
                line.insert(QStringLiteral("body"), QString::fromUtf8(result.body));
            else
                line.insert(QStringLiteral("body_base64"), QString::fromLatin1(result.body.toBase64()));
        } else if (!result.body.isEmpty()) {
            line.insert(QStringLiteral("body_skipped"), json ? QStringLiteral("too_large") : QStringLiteral("not_json"));
        }
        const QByteArray text = QJsonDocument(line).toJson(QJsonDocument::Compact) + '\n';

        std::lock_guard lock(m_mutex);
        const pid_t pid = ::getpid();
        if (m_fd < 0 || pid != m_pid) {
            if (m_fd >= 0)
                ::close(m_fd);
            m_pid = pid;
            const QByteArray file = m_dir + '/' + QByteArray::number(pid) + ".jsonl";
            m_fd = ::open(file.constData(), O_WRONLY | O_CREAT | O_APPEND | O_CLOEXEC, 0644);
            if (m_fd < 0 && errno == ENOENT) {
                // The directory is cleared at the start of a CTest run; the first writer makes it again.
                if (::mkdir(m_dir.constData(), 0755) == 0 || errno == EEXIST)
                    m_fd = ::open(file.constData(), O_WRONLY | O_CREAT | O_APPEND | O_CLOEXEC, 0644);
            }
            if (m_fd < 0)
                return;
        }
        qsizetype written = 0;
        while (written < text.size()) {
            const ssize_t n = ::write(m_fd, text.constData() + written, size_t(text.size() - written));
            if (n < 0 && errno == EINTR)
                continue;
            if (n <= 0)
                return;
            written += n;
        }
    }

private:
    ExchangeRecorder()
        : m_dir(qgetenv("MARQUEE_RECORD_HTTP_DIR"))
    {
    }

    QByteArray m_dir;
    std::mutex m_mutex;
    int m_fd = -1;
    pid_t m_pid = 0;
};
} // namespace

QJsonObject HttpResult::json() const
{
    return QJsonDocument::fromJson(body).object();
}

QJsonArray HttpResult::jsonArray() const
{
    return QJsonDocument::fromJson(body).array();
}

QByteArray HttpResult::header(const QByteArray &name) const
{
    for (const auto &[key, value] : headers) {
        if (key.compare(name, Qt::CaseInsensitive) == 0)
            return value;
    }
    return {};
}

HttpClient::HttpClient(QString host, quint16 port)
    : m_host(std::move(host))
    , m_port(port)
{
}

HttpClient::~HttpClient()
{
    disconnect();
}

void HttpClient::disconnect()
{
    if (m_fd >= 0)
        ::close(m_fd);
    m_fd = -1;
    m_buffer.clear();
}

bool HttpClient::ensureConnected()
{
    if (m_fd >= 0)
        return true;
    m_fd = ::socket(AF_INET, SOCK_STREAM | SOCK_CLOEXEC, 0);
    if (m_fd < 0)
        return false;
    const int one = 1;
    ::setsockopt(m_fd, IPPROTO_TCP, TCP_NODELAY, &one, sizeof one);
    timeval timeout{30, 0};
    ::setsockopt(m_fd, SOL_SOCKET, SO_RCVTIMEO, &timeout, sizeof timeout);
    sockaddr_in sa{};
    sa.sin_family = AF_INET;
    sa.sin_port = htons(m_port);
    ::inet_pton(AF_INET, m_host == QLatin1String("localhost") ? "127.0.0.1" : m_host.toLatin1().constData(), &sa.sin_addr);
    if (::connect(m_fd, reinterpret_cast<sockaddr *>(&sa), sizeof sa) != 0) {
        disconnect();
        return false;
    }
    return true;
}

bool HttpClient::sendAll(const QByteArray &data)
{
    qsizetype sent = 0;
    while (sent < data.size()) {
        const ssize_t n = ::send(m_fd, data.constData() + sent, size_t(data.size() - sent), MSG_NOSIGNAL);
        if (n <= 0) {
            if (n < 0 && errno == EINTR)
                continue;
            return false;
        }
        sent += n;
    }
    return true;
}

bool HttpClient::readResponse(HttpResult &result)
{
    char chunk[65536];
    auto fill = [&]() {
        const ssize_t n = ::recv(m_fd, chunk, sizeof chunk, 0);
        if (n <= 0)
            return false;
        m_buffer.append(chunk, n);
        return true;
    };
    qsizetype headerEnd;
    while ((headerEnd = m_buffer.indexOf("\r\n\r\n")) < 0) {
        if (!fill())
            return false;
    }
    const QList<QByteArray> lines = m_buffer.left(headerEnd).split('\n');
    const QList<QByteArray> statusLine = lines.value(0).trimmed().split(' ');
    result.status = statusLine.value(1).toInt();
    qsizetype contentLength = 0;
    bool close = false;
    for (qsizetype i = 1; i < lines.size(); ++i) {
        const QByteArray line = lines[i].trimmed();
        const qsizetype colon = line.indexOf(':');
        if (colon <= 0)
            continue;
        const QByteArray name = line.left(colon).trimmed();
        const QByteArray value = line.mid(colon + 1).trimmed();
        result.headers.append({name, value});
        if (name.compare("Content-Length", Qt::CaseInsensitive) == 0)
            contentLength = value.toLongLong();
        if (name.compare("Connection", Qt::CaseInsensitive) == 0 && value.compare("close", Qt::CaseInsensitive) == 0)
            close = true;
    }
    m_buffer.remove(0, headerEnd + 4);
    while (m_buffer.size() < contentLength) {
        if (!fill())
            return false;
    }
    result.body = m_buffer.left(contentLength);
    m_buffer.remove(0, contentLength);
    if (close)
        disconnect();
    return true;
}

HttpResult HttpClient::request(const QByteArray &method, const QByteArray &path, const QByteArray &body,
                               const QList<QPair<QByteArray, QByteArray>> &headers)
{
    QByteArray request = method + ' ' + path + " HTTP/1.1\r\nHost: " + m_host.toLatin1() + "\r\n";
    if (!m_token.isEmpty())
        request += "Authorization: Bearer " + m_token.toLatin1() + "\r\n";
    for (const auto &[name, value] : headers)
        request += name + ": " + value + "\r\n";
    if (!body.isEmpty() || method == "POST" || method == "PATCH" || method == "PUT")
        request += "Content-Type: application/json\r\nContent-Length: " + QByteArray::number(body.size()) + "\r\n";
    request += "\r\n" + body;

    QElapsedTimer timer;
    timer.start();
    // One retry on a fresh connection: the server may have closed an idle keep-alive connection.
    for (int attempt = 0; attempt < 2; ++attempt) {
        HttpResult result;
        const bool reused = m_fd >= 0;
        if (!ensureConnected())
            return result;
        if (sendAll(request) && readResponse(result)) {
            result.latencyMs = timer.nsecsElapsed() / 1e6;
            if (ExchangeRecorder::instance().enabled())
                ExchangeRecorder::instance().record(method, path, headers, body, result);
            return result;
        }
        disconnect();
        if (!reused)
            return result;
    }
    return {};
}

HttpResult HttpClient::post(const QByteArray &path, const QJsonObject &body, const QList<QPair<QByteArray, QByteArray>> &headers)
{
    return request("POST", path, QJsonDocument(body).toJson(QJsonDocument::Compact), headers);
}

} // namespace marquee::test
