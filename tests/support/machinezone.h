// SPDX-License-Identifier: AGPL-3.0-or-later
#pragma once

#include <QByteArray>
#include <QtGlobal>
#include <ctime>

namespace marquee::test {

/**
 * @brief The machine's time zone set to @p tz (the TZ variable) while the object lives, as on a kiosk whose
 * clock was left at UTC or a desk in another city; the previous setting comes back after.
 */
class MachineZone
{
public:
    explicit MachineZone(const char *tz)
        : m_old(qgetenv("TZ"))
        , m_had(qEnvironmentVariableIsSet("TZ"))
    {
        qputenv("TZ", tz);
        tzset();
    }
    ~MachineZone()
    {
        if (m_had)
            qputenv("TZ", m_old);
        else
            qunsetenv("TZ");
        tzset();
    }
    MachineZone(const MachineZone &) = delete;
    MachineZone &operator=(const MachineZone &) = delete;

private:
    QByteArray m_old;
    bool m_had;
};

} // namespace marquee::test
