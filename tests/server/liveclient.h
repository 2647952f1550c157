// SPDX-License-Identifier: AGPL-3.0-or-later
// A WebSocket subscriber of the live seat-map stream for the server tests (tst_live.cpp, tst_coherence.cpp). Header-only.
#pragma once

#include "servertesthelpers.h"

#include <QElapsedTimer>
#include <QJsonArray>
#include <QJsonDocument>
#include <QJsonObject>
#include <QMap>
#include <QNetworkRequest>
#include <QWebSocket>
#include <functional>
#include <vector>

namespace marquee::test {

/** @brief A WebSocket subscriber that records every message and keeps the statuses it was told. */
class LiveClient
{
public:
    LiveClient(quint16 port, const QByteArray &pathAndQuery, const QString &token)
    {
        QObject::connect(&m_socket, &QWebSocket::textMessageReceived, [this](const QString &text) {
            const QJsonObject message = QJsonDocument::fromJson(text.toUtf8()).object();
            m_messages.push_back(message);
            apply(message);
            if (m_onMessage)
                m_onMessage(message);
        });
        QObject::connect(&m_socket, &QWebSocket::disconnected, [this] {
            m_closed = true;
            m_closeCode = m_socket.closeCode();
        });
        QNetworkRequest request(QUrl(QStringLiteral("ws://127.0.0.1:%1").arg(port) + QString::fromLatin1(pathAndQuery)));
        if (!token.isEmpty())
            request.setRawHeader("Authorization", "Bearer " + token.toLatin1());
        m_socket.open(request);
    }

    /** @brief Run the event loop until @p condition holds or @p ms pass. */
    bool waitFor(const std::function<bool()> &condition, int ms = 10000) { return pumpUntil(condition, ms); }
    bool waitForStatus(const QString &seat, const QString &status) { return waitFor([&] { return m_status.value(seat) == status; }); }

    const std::vector<QJsonObject> &messages() const { return m_messages; }
    QString status(const QString &seat) const { return m_status.value(seat); }
    qint64 version() const { return m_version; }
    QString epoch() const { return m_epoch; }
    bool closed() const { return m_closed; }
    int closeCode() const { return m_closeCode; }
    /** @brief Versions of the deltas received, in order. */
    const std::vector<qint64> &deltaVersions() const { return m_deltaVersions; }
    void setSeatOrder(const QStringList &seats) { m_seatOrder = seats; }
    QMap<QString, QString> statuses() const { return m_status; }
    /** @brief Start from what an earlier connection pieced together (before resuming with `since`). */
    void setStatuses(const QMap<QString, QString> &statuses) { m_status = statuses; }
    void close() { m_socket.close(); }
    /** @brief Called with each message after it was applied (on the test thread, while it pumps events). */
    void setOnMessage(std::function<void(const QJsonObject &)> onMessage) { m_onMessage = std::move(onMessage); }

private:
    void apply(const QJsonObject &message)
    {
        const QString type = message.value(QStringLiteral("type")).toString();
        if (type == QLatin1String("snapshot")) {
            m_epoch = message.value(QStringLiteral("epoch")).toString();
            m_version = message.value(QStringLiteral("version")).toInteger();
            const QString letters = message.value(QStringLiteral("statuses")).toString();
            for (int i = 0; i < letters.size() && i < m_seatOrder.size(); ++i)
                m_status[m_seatOrder[i]] = letters[i] == u'h' ? QStringLiteral("held") : letters[i] == u'b' ? QStringLiteral("booked") : QStringLiteral("available");
        } else if (type == QLatin1String("resumed")) {
            m_epoch = message.value(QStringLiteral("epoch")).toString();
            m_version = message.value(QStringLiteral("from_version")).toInteger();
        } else if (type == QLatin1String("delta")) {
            m_version = message.value(QStringLiteral("version")).toInteger();
            m_deltaVersions.push_back(m_version);
            for (const QJsonValue &change : message.value(QStringLiteral("changes")).toArray())
                m_status[change[QStringLiteral("seat_id")].toString()] = change[QStringLiteral("status")].toString();
        }
    }

    QWebSocket m_socket;
    std::function<void(const QJsonObject &)> m_onMessage;
    std::vector<QJsonObject> m_messages;
    QMap<QString, QString> m_status;
    QStringList m_seatOrder;
    std::vector<qint64> m_deltaVersions;
    qint64 m_version = -1;
    QString m_epoch;
    bool m_closed = false;
    int m_closeCode = 0;
};

inline QByteArray livePath(qint64 showId, const QByteArray &query = {})
{
    return "/api/v1/shows/" + QByteArray::number(showId) + "/live" + (query.isEmpty() ? QByteArray() : "?" + query);
}

/** @brief The seat ids of a show in the seat map's order, the order of a snapshot's statuses. */
inline QStringList seatOrder(HttpClient &client, qint64 showId)
{
    QStringList seats;
    const HttpResult map = client.get("/api/v1/shows/" + QByteArray::number(showId) + "/seatmap");
    for (const QJsonValue &seat : map.json().value(QStringLiteral("seats")).toArray())
        seats << seat[QStringLiteral("seat_id")].toString();
    return seats;
}

} // namespace marquee::test
