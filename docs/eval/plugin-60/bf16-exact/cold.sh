# alternate before (HEAD worktree) and after, a new process each; one document and the library
Q="What was PepsiCo's net revenue in 2021?"
for i in 1 2 3; do
  for side in base new; do
    if [ $side = base ]; then cd /tmp/wt-base; P="PYTHONPATH=/tmp/wt-base"; else cd /work/main; P=""; fi
    for scope in doc lib; do
      if [ $scope = doc ]; then A="--doc PEPSICO_2021_10K.pdf"; else A=""; fi
      /usr/bin/time -f "$side $scope %e s %M KB" env $P /work/main/.venv/bin/bookrag retrieve "$Q" $A --no-llm --json > /dev/null 2>>/tmp/ev/cold.err
      tail -1 /tmp/ev/cold.err
    done
  done
done
