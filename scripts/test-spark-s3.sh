#!/usr/bin/env bash
# Spark tasks calling spool.partition(out='s3://…', run_id=…, append=True)
# into one dataset on the S3-compatible test server, and Spark reading it
# back through s3a:// (tests/spark/test_spark_s3.py).
#
# Needs what scripts/test-spark.sh sets up (Java 17+, PySpark in
# bindings/python/.venv with the spool package installed) and starts the
# server itself (scripts/s3-server.sh). hadoop-aws is taken from Maven
# Central at the Hadoop version PySpark ships (its hadoop-client-api jar),
# with the AWS SDK bundle that Hadoop version names (about 560 MB), each
# checked against Maven Central's SHA-1 and kept under target/spark-s3-jars
# for later runs. Prints how long the download and the test took.
set -euo pipefail
cd "$(dirname "$0")/.."
venv=bindings/python/.venv
maven=https://repo1.maven.org/maven2

jars_dir="$("$venv/bin/python" -c 'import os, pyspark; print(os.path.join(os.path.dirname(pyspark.__file__), "jars"))')"
hadoop="$(basename "$(ls "$jars_dir"/hadoop-client-api-*.jar)" .jar)"
hadoop="${hadoop#hadoop-client-api-}"
sdk="$(curl -fsS "$maven/org/apache/hadoop/hadoop-project/$hadoop/hadoop-project-$hadoop.pom" |
    sed -n 's:.*<aws-java-sdk-v2.version>\(.*\)</aws-java-sdk-v2.version>.*:\1:p')"
echo "test-spark-s3.sh: PySpark's Hadoop $hadoop: hadoop-aws $hadoop, AWS SDK bundle $sdk"

cache=target/spark-s3-jars
mkdir -p "$cache"
fetched=$SECONDS
fetch() { # maven path, file name
    if [ ! -f "$cache/$2" ]; then
        curl -fsS -o "$cache/$2.part" "$maven/$1/$2"
        want="$(curl -fsS "$maven/$1/$2.sha1" | cut -c1-40)"
        got="$(sha1sum "$cache/$2.part" | cut -c1-40)"
        if [ "$want" != "$got" ]; then
            echo "test-spark-s3.sh: $2: SHA-1 $got, Maven Central says $want" >&2
            exit 1
        fi
        mv "$cache/$2.part" "$cache/$2"
    fi
}
fetch "org/apache/hadoop/hadoop-aws/$hadoop" "hadoop-aws-$hadoop.jar"
fetch "software/amazon/awssdk/bundle/$sdk" "bundle-$sdk.jar"
echo "test-spark-s3.sh: jars ready in $((SECONDS - fetched)) s"
export SPOOL_SPARK_S3_JARS="$PWD/$cache/hadoop-aws-$hadoop.jar,$PWD/$cache/bundle-$sdk.jar"

eval "$(scripts/s3-server.sh start)"
trap 'scripts/s3-server.sh stop' EXIT
started=$SECONDS
export PYSPARK_PYTHON="$PWD/$venv/bin/python"
export PYSPARK_DRIVER_PYTHON="$PYSPARK_PYTHON"
"$venv/bin/python" -m pip install -q boto3
"$venv/bin/python" -m pytest -q tests/spark/test_spark_s3.py
echo "test-spark-s3.sh: passed in $((SECONDS - started)) s against $SPOOL_S3_SERVER_NAME (server and Spark; the jars not counted)"
