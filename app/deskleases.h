// SPDX-License-Identifier: AGPL-3.0-or-later
#pragma once

#include <QJsonObject>
#include <QObject>
#include <QPointer>
#include <QVariantList>
#include <QVariantMap>
#include <QtQml/qqmlregistration.h>

namespace marquee::app {

class JsonTableModel;
class StaffSession;

/**
 * @brief The desk's leases page (`Desk.leases`): every till's leases of the shows around today, per show and till
 * — seats leased, sold offline (reported), given back, unreported — with revoke (a lease before its expiry:
 * `DELETE /api/v1/leases/{id}` as manager; its seats stay off sale until the till reports) and "release unreported
 * seats" (the same call after expiry: what the till never reported goes back on sale).
 */
class DeskLeases : public QObject
{
    Q_OBJECT
    QML_ELEMENT
    QML_UNCREATABLE("Owned by the desk controller")
    /**
     * @brief One row per lease, by show start: lease_id, show (title and time), till, state (wire) and state_text,
     * leased, sold, sales, returned, unreported (seat counts), expires, can_revoke, can_release.
     */
    Q_PROPERTY(QVariantList rows READ rows NOTIFY rowsChanged)
    Q_PROPERTY(bool loading READ loading NOTIFY rowsChanged)
    /** @brief Seats of unreported leases (off sale until a till reports or a manager releases them). */
    Q_PROPERTY(int unreportedSeats READ unreportedSeats NOTIFY rowsChanged)
    Q_PROPERTY(int leasedSeats READ leasedSeats NOTIFY rowsChanged)
    /** @brief The page's last word (what revoke or release did), and whether it is an error. */
    Q_PROPERTY(QString message READ message NOTIFY messageChanged)
    Q_PROPERTY(bool messageIsError READ messageIsError NOTIFY messageChanged)
public:
    DeskLeases(StaffSession *session, JsonTableModel *shows, JsonTableModel *devices, QObject *parent = nullptr);

    QVariantList rows() const { return m_rows; }
    bool loading() const { return m_loading; }
    int unreportedSeats() const;
    int leasedSeats() const;
    QString message() const { return m_message; }
    bool messageIsError() const { return m_messageIsError; }

    /** @brief Read the leases of every show starting from a day ago to two days ahead. */
    Q_INVOKABLE void refresh();
    /** @brief A manager ends the lease before its expiry: it is revoked, its seats stay leased until the till reports. */
    Q_INVOKABLE void revoke(const QString &leaseId);
    /** @brief After its expiry: the seats the till never reported go back on sale. */
    Q_INVOKABLE void releaseUnreported(const QString &leaseId);

Q_SIGNALS:
    void rowsChanged();
    void messageChanged();

private:
    void end(const QString &leaseId, bool release);
    void setMessage(const QString &message, bool error);
    QVariantMap rowOf(const QJsonObject &lease, const QVariantMap &show) const;

    QPointer<StaffSession> m_session;
    QPointer<JsonTableModel> m_shows;
    QPointer<JsonTableModel> m_devices;
    QVariantList m_rows;
    bool m_loading = false;
    int m_generation = 0;
    QString m_message;
    bool m_messageIsError = false;
};

} // namespace marquee::app
